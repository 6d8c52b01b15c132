import { Counter, Histogram, type Metric, type Registry } from 'prom-client';

/**
 * The domain's counters and histograms. They are module-level (the services that record them take no metrics
 * dependency) and belong to no registry until an entry point registers them on its process's registry with
 * registerDomainMetrics; until then recording costs a map update and nothing reads it.
 */
const routingDecisions = new Counter({
  name: 'handoff_routing_decisions_total',
  help: 'Routings decided, by decision (ai_autonomous, human_required, ...) and the reason of the rule that settled it',
  labelNames: ['decision', 'reason'] as const,
  registers: [],
});

const escalations = new Counter({
  name: 'handoff_escalations_total',
  help: 'Routings moved up their escalation chain, by the escalation level reached',
  labelNames: ['level'] as const,
  registers: [],
});

const approvalWait = new Histogram({
  name: 'handoff_approval_wait_seconds',
  help: 'Seconds from an approval request being opened to a human answering it, by decision',
  labelNames: ['decision'] as const,
  // From an answer within seconds to one near the longest default TTL (a day) and beyond.
  buckets: [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 7 * 24 * 3600],
  registers: [],
});

const webhookAttempts = new Counter({
  name: 'handoff_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts, by outcome (delivered: a 2xx answer; failed: anything else)',
  labelNames: ['outcome'] as const,
  registers: [],
});

const webhookLag = new Histogram({
  name: 'handoff_webhook_delivery_lag_seconds',
  help: 'Seconds from an event being recorded to its webhook being delivered (a 2xx answer), retries included',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 6 * 3600, 24 * 3600],
  registers: [],
});

/** Decisions and answers are recorded where the API makes them; escalations and deliveries in the worker's activities. */
const API_METRICS: Metric[] = [routingDecisions, approvalWait];
const WORKER_METRICS: Metric[] = [escalations, webhookAttempts, webhookLag];

/** Registers the domain metrics a process records (`npm start` runs both roles in one process). */
export function registerDomainMetrics(registry: Registry, roles: { api: boolean; worker: boolean }): void {
  for (const metric of [...(roles.api ? API_METRICS : []), ...(roles.worker ? WORKER_METRICS : [])])
    registry.registerMetric(metric);
}

const secondsBetween = (from: string, to: string) => Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);

export function recordRoutingDecision(verdict: { decision: string; reason: string }): void {
  routingDecisions.inc({ decision: verdict.decision, reason: verdict.reason });
}

export function recordEscalation(level: string): void {
  escalations.inc({ level });
}

export function recordApprovalAnswered(approval: {
  status: string;
  created_at: string;
  responded_at?: string | undefined;
  updated_at: string;
}): void {
  approvalWait.observe(
    { decision: approval.status },
    secondsBetween(approval.created_at, approval.responded_at ?? approval.updated_at),
  );
}

export function recordWebhookAttempt(attempt: {
  delivered: boolean;
  event_created_at: string;
  answered_at: string;
}): void {
  webhookAttempts.inc({ outcome: attempt.delivered ? 'delivered' : 'failed' });
  if (attempt.delivered) webhookLag.observe(secondsBetween(attempt.event_created_at, attempt.answered_at));
}
