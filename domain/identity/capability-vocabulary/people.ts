import type { CapabilityDefinition } from './definition';

/** People and their Passports: keys, enrollment, recovery, links, consent, attestations, employees, delegation; capability grants and notifications. */
export const PEOPLE_CAPABILITIES = {
  'passports:read': {
    description: 'Read Passports of one’s organization, their JWKS and DID documents',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'passports:create': {
    description: 'Create agent Passports (never a person’s: that is people:enroll)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'passports:keys': {
    description: 'Rotate and revoke the keys of one’s organization’s Passports',
    risk: 'high',
    implied_by: 'platform:write',
  },
  'people:enroll': {
    description:
      'Enroll a person: a device registration challenge or passkey registration options that mint a person’s Passport',
    risk: 'high',
    implied_by: 'people:enroll',
  },
  'recovery:guard': {
    description:
      'Guardian recovery as a person: name or remove one’s guardians, accept guardianship, approve a recovery, cancel a recovery of one’s own Passport (a session only)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'recovery:request': {
    description:
      'Ask for the guardian recovery of a person’s Passport and execute it with its confirmation code (a recovery desk’s power)',
    risk: 'high',
    implied_by: 'people:enroll',
  },
  'passports:link': {
    description: 'Link one’s own Passport to one’s organization by the e-mail code (the person’s own act)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'passports:consent': {
    description: 'Record a consent in one’s own Passport’s consent log (the person’s own act)',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'people:attest': {
    description: 'Attest a skill of a person of the organization, signed by the organization’s key',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'org:employees:read': {
    description: 'List and read the organization’s employees (their e-mail addresses and roles)',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'org:employees:manage': {
    description: 'Invite employees: a linking code and an enrollment link by e-mail',
    risk: 'high',
    implied_by: 'people:enroll',
  },
  'org:connectors:read': {
    description: 'List and read the organization’s own connectors (their configuration)',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'org:connectors:manage': {
    description: 'Create the organization’s own connectors',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'delegation:read': {
    description: 'List and read one’s delegation tokens, delegations and revocations',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'delegation:write': {
    description: 'Delegate to an agent, rotate and revoke delegation tokens and delegations',
    risk: 'standard',
    implied_by: 'platform:write',
  },
  'capabilities:read': {
    description:
      'List and read capability definitions, grants, proofs, ontologies, courses; match; verify proofs and skills',
    risk: 'low',
    implied_by: 'platform:read',
  },
  'capabilities:prove': { description: 'Submit a skill proof', risk: 'standard', implied_by: 'platform:write' },
  'capabilities:manage': {
    description: 'Define, import and promote capabilities; create courses and record completions',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'capabilities:grant': {
    description: 'Grant and revoke capabilities, issue proofs of grants',
    risk: 'high',
    implied_by: 'platform:admin',
  },
  'notifications:manage': {
    description: 'Read and set the organization’s notification policy (Slack webhook, passkey signature above a risk)',
    risk: 'high',
    implied_by: 'platform:admin',
  },
} as const satisfies Record<string, CapabilityDefinition>;
