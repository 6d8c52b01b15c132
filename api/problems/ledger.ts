import type { ProblemTable } from './table';

/** The ledger, provenance, audit and compliance. */
export const LEDGER_PROBLEMS = {
  ledger_record_not_found: {
    status: 404,
    title: 'No such provenance record',
    remediation: ['Check the transaction_id from the record’s ledger anchor'],
  },
  ledger_checkpoint_not_found: {
    status: 404,
    title: 'No such ledger checkpoint',
    remediation: ['Ask for a tree size no larger than the latest checkpoint’s (GET /v1/ledger/checkpoint)'],
  },
  ledger_proof_unavailable: {
    status: 422,
    title: 'No such proof: the tree does not hold what it should prove',
    remediation: ['Ask for sizes within the latest checkpoint, the first no larger than the second'],
  },
  attestation_not_found: {
    status: 404,
    title: 'No such attestation',
    remediation: ['Check the attestation id returned when it was created'],
  },
  attestation_organization_mismatch: {
    status: 403,
    title: 'An attestation is made for the caller’s own organization only',
    remediation: ['Send your organization’s id as organizationId (GET /v1/organizations shows it)'],
  },
  attestation_agent_not_found: {
    status: 422,
    title: 'agentId names no agent of the caller’s organization',
    remediation: [
      'Name an agent Passport (id or DID), a platform agent (id or URI) or an orchestration agent (id or DID) of your organization',
    ],
  },
  compliance_report_not_found: {
    status: 404,
    title: 'No such compliance report',
    remediation: ['Check the report_id, or request the report again with POST /v1/orch/compliance/report'],
  },
} as const satisfies ProblemTable;
