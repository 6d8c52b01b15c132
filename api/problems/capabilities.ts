import type { ProblemTable } from './table';

/** The capability graph: definitions, grants, proofs, ontologies, courses. */
export const CAPABILITY_PROBLEMS = {
  capability_not_found: {
    status: 404,
    title: 'No such capability definition',
    remediation: ['Check the capability URI, or list definitions with GET /v1/capabilities'],
  },
  capability_exists: {
    status: 409,
    title: 'The capability is already defined',
    remediation: ['Read it with GET /v1/capabilities/{capability_id}; definitions are not redefined'],
  },
  capability_already_promoted: {
    status: 409,
    title: 'The capability is already promoted',
    remediation: ['Read the organization’s ontology with GET /v1/ontology-packages/organization/versions/latest'],
  },
  capability_not_defined: {
    status: 422,
    title: 'A capability named is not defined in your organization',
    remediation: ['Define it first with POST /v1/capabilities (or import it), then grant or teach it'],
  },
  capability_grant_not_found: {
    status: 404,
    title: 'No such capability grant',
    remediation: ['Check the grant id returned when the capability was granted'],
  },
  grant_expiry_past: {
    status: 422,
    title: 'The grant’s expiry has already passed',
    remediation: ['Give an expiresAt in the future, or none for a grant without expiry'],
  },
  agent_passport_not_found: {
    status: 422,
    title: 'agentDID is not an agent Passport of your organization',
    remediation: ['Create the agent’s Passport with POST /v1/passports (type agent) and grant to its DID'],
  },
  issuer_passport_not_found: {
    status: 422,
    title: 'issuerPassportId is not an agent or organization Passport of your organization',
    remediation: ['Name an agent or organization Passport of yours, or leave issuerPassportId out'],
  },
  issuer_passport_missing: {
    status: 409,
    title: 'The organization has no Passport to issue grants',
    remediation: [
      'Create the organization’s Passport with POST /v1/passports (type organization), or name issuerPassportId',
    ],
  },
  course_completion_not_found: {
    status: 422,
    title: 'The evidence names no course completion of your organization',
    remediation: ['Record the completion with POST /v1/courses/{course_id}/completions and cite its completionId'],
  },
  evidence_mismatch: {
    status: 422,
    title: 'The course completion does not support this grant',
    remediation: ['Cite a completion by the same subject of a course that teaches every capability granted'],
  },
  grant_not_live: {
    status: 409,
    title: 'The grant is revoked or expired',
    remediation: ['Grant the capability again; a revoked or expired grant proves nothing'],
  },
  proof_not_signed: {
    status: 409,
    title: 'The issuing Passport cannot sign the proof',
    remediation: ['Give the issuing Passport an active key (POST /v1/passports/{passport_id}/keys/rotate)'],
  },
  capability_proof_invalid: {
    status: 422,
    title: 'The skill proof does not verify',
    remediation: [
      'Ask for a new proof of a live grant (POST /v1/capabilities/grants/{grant_id}/proofs) and submit it unchanged',
    ],
  },
  capability_proof_not_found: {
    status: 404,
    title: 'No such skill proof',
    remediation: ['Check the proof id returned when the proof was submitted'],
  },
  ontology_package_not_found: {
    status: 404,
    title: 'No such ontology package or version',
    remediation: ['List packages with GET /v1/ontology-packages; a package exists once a capability is promoted'],
  },
  course_not_found: {
    status: 404,
    title: 'No such course',
    remediation: ['List courses with GET /v1/courses'],
  },
  skill_subject_required: {
    status: 422,
    title: 'Whose skills to verify is not known',
    remediation: ['Name subjectDid, or call as a signed-in person or with a delegation token'],
  },
} as const satisfies ProblemTable;
