import type { ProblemTable } from './table';

/** Orchestration layer. The four codes of the spec: agent_not_registered (403), safety_violation (403), escalation_required (422), rule_conflict (409). */
export const ORCHESTRATION_PROBLEMS = {
  agent_not_registered: {
    status: 403,
    title: 'The AI agent is not registered (or not active)',
    remediation: ['Register the agent with POST /v1/orch/agents/register and call with its API key'],
  },
  agent_id_mismatch: {
    status: 403,
    title: 'X-Agent-ID names another agent than the API key',
    remediation: ['Send the X-Agent-ID of the agent the API key belongs to, or omit it'],
  },
  safety_violation: {
    status: 403,
    title: 'The action violates a safety boundary',
    remediation: ['Stay within the boundary (GET /v1/orch/boundaries), or route the task to a human'],
  },
  confidence_below_threshold: {
    status: 422,
    title: 'AI confidence is below the 0.70 threshold for autonomous action',
    remediation: ['Escalate to a human (POST /v1/orch/escalate); escalation.suggested_reviewers names candidates'],
  },
  escalation_required: {
    status: 422,
    title: 'Human escalation is required',
    remediation: ['Escalate the task to a human reviewer before acting'],
  },
  confidence_mismatch: {
    status: 422,
    title: 'X-Confidence-Score disagrees with the body’s confidence',
    remediation: ['Send the same confidence in X-Confidence-Score and the body, or only one of them'],
  },
  rule_conflict: {
    status: 409,
    title: 'The escalation rule conflicts with, or is shadowed by, an enabled rule',
    remediation: [
      'Resolve the conflicts listed: change priority, conditions or actions',
      'Or set allow_conflicts true to store it anyway',
    ],
  },
  routing_closed: {
    status: 409,
    title: 'The routing no longer takes escalations or confidence reports',
    remediation: ['Start a new routing for further work on the task'],
  },
  routing_not_queued: {
    status: 409,
    title: 'The routing is not waiting in the queue for a reviewer',
    remediation: [
      'Read the routing’s status with GET /v1/orch/routing/{routing_id}: only a queued routing takes an assignment',
    ],
  },
  reviewer_passport_not_found: {
    status: 422,
    title: 'No such Passport in the organization',
    remediation: [
      'Name the passport_id of an existing Passport, or omit it to link the Passport with the reviewer’s DID',
    ],
  },
  reviewer_not_available: {
    status: 422,
    title: 'No available reviewer is registered with this DID',
    remediation: ['Register or update the reviewer with PUT /v1/orch/reviewers/{did}, or name an available one'],
  },
  did_encoding_ambiguous: {
    status: 400,
    title: 'The DID in the path is not encoded unambiguously',
    remediation: [
      'Percent-encode the DID as a whole (encodeURIComponent)',
      'Or send it as it is with each % of it written %25 (a DID’s own %3A as %253A)',
    ],
  },
  routing_not_completed: {
    status: 409,
    title: 'The routing has no outcome yet',
    remediation: ['Wait until the routing completes (GET /v1/orch/routing/{routing_id}), then retry'],
  },
  rule_not_found: {
    status: 404,
    title: 'No such escalation rule',
    remediation: ['List rules with GET /v1/orch/escalation/rules'],
  },
  safety_domain_not_found: {
    status: 404,
    title: 'No safety configuration for this domain',
    remediation: ['Configure the domain with PUT /v1/orch/safety/config/{domain}'],
  },
} as const satisfies ProblemTable;
