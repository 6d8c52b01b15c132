import type { EventKind } from './events';
import type { RuleEvaluation } from '../routing/decision';
import type { DecisionSignature } from '../identity/decision-signatures';

export interface LedgerAnchor {
  transaction_id: string;
  block_number: number;
}

export interface ProvenanceActor {
  type: 'ai_agent' | 'orch_core' | 'human';
  /** An agent's id; on a person's act done under a delegation token, the agent that acted for them. */
  agent_id?: string;
  did?: string;
  instance_id?: string;
  /** A person's act: their Passport, and the passkey, device key or delegation token that authenticated it. */
  passport_id?: string;
  credential?: { type: 'passkey' | 'device_key' | 'delegation_token' | 'email_link' | 'slack_action'; id: string };
  /** A person's act done under a delegation token: the token (credential is then what signed in the session it came from). */
  delegation_token_id?: string;
  /** The core acting at the request of a credential that authenticates no person (a PAT, a service account, an OAuth client). */
  principal?: { kind: string; id: string };
  /** A person's decision signed with their passkey (docs/decision-signatures.md): verifiable with their DID document alone. */
  decision_signature?: DecisionSignature;
}

/** What a caller records; the ledger adds position, hashes and anchor. */
export interface ProvenanceEntry {
  /** The routing (or other resource) the record belongs to. */
  subject_id: string;
  /** Unique within the subject, e.g. `routing_decision` or `escalation:2`; with subject_id it keys the record. */
  step_id: string;
  timestamp: string;
  actor: ProvenanceActor;
  action: string;
  input_data: Record<string, unknown>;
  output_data: Record<string, unknown>;
  reasoning: string;
  rules_evaluated?: RuleEvaluation[];
}

/** An event the same transaction puts in the outbox, for webhooks to deliver. */
export interface OutboxEvent {
  event: EventKind;
  data: Record<string, unknown>;
}

export interface AppendProvenanceInput {
  entry: ProvenanceEntry;
  events?: OutboxEvent[];
}

/** The DID the orchestration core signs decisions as. */
export const ORCH_CORE_DID = 'did:web:handoff.local:orch-core';

/** Agents receive registry DIDs with registration; until then an agent id maps to this stable DID. */
export function agentDid(agentId: string): string {
  return agentId.startsWith('did:') ? agentId : `did:web:handoff.local:agents:${encodeURIComponent(agentId)}`;
}

export interface Accountability {
  primary_decision_maker: string;
  ai_support_provided: boolean;
  human_oversight_present: boolean;
  all_safety_checks_passed: boolean;
}

/**
 * Who answers for the outcome: the human who resolved it when one did, else the agent that acted alone,
 * else (undecided or unresolved) the orchestration core that holds it.
 */
export function accountabilityOf(chain: readonly ProvenanceEntry[], agentId: string | undefined): Accountability {
  const resolver = [...chain].reverse().find((entry) => entry.actor.type === 'human' && entry.actor.did);
  const decision = chain.find((entry) => entry.action === 'routing_decided');
  const autonomous = decision?.output_data.decision === 'ai_autonomous';
  const primary = resolver?.actor.did ?? (autonomous && agentId ? agentDid(agentId) : ORCH_CORE_DID);
  const safety = decision?.output_data.safety_analysis as { all_constraints_met?: boolean } | undefined;
  return {
    primary_decision_maker: primary,
    ai_support_provided: agentId !== undefined,
    human_oversight_present: resolver !== undefined,
    all_safety_checks_passed: safety?.all_constraints_met === true,
  };
}
