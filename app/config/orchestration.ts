import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE } from '../../domain/webhooks/rules';
import { seconds } from './fields';

/** Webhook deliveries and the outbox dispatcher. */
export const webhookSettings = {
  /** Waits between webhook delivery attempts in seconds, comma-separated; about a day in all by default. */
  WEBHOOK_RETRY_DELAYS_SECONDS: z
    .string()
    .transform((value, ctx) => {
      const delays = value.split(',').map((item) => Number(item.trim()));
      if (delays.length === 0 || delays.some((delay) => !Number.isInteger(delay) || delay < 1))
        ctx.addIssue({ code: 'custom', message: 'a comma-separated list of whole seconds, each at least 1' });
      return delays;
    })
    .default(DEFAULT_RETRY_SCHEDULE.delays_seconds),
  /** Each retry wait is spread by ± this share of it. */
  WEBHOOK_RETRY_JITTER: z.coerce.number().min(0).max(1).default(DEFAULT_RETRY_SCHEDULE.jitter),
  /** An endpoint whose every attempt failed for this long is disabled (a 410 disables it at once). */
  WEBHOOK_DISABLE_AFTER_FAILING_SECONDS: seconds.default(3 * 24 * 60 * 60),
  /** Outbox events the dispatcher claims per batch. */
  WEBHOOK_DISPATCH_BATCH_SIZE: z.coerce.number().int().positive().max(1000).default(100),
  /** The dispatcher looks for undispatched events at least this often; on a Postgres server commits also wake it. */
  WEBHOOK_DISPATCH_POLL_MS: z.coerce.number().int().min(100).default(5000),
  /**
   * Wake-ups of the dispatcher are at least this far apart: under load one pass takes the events of many
   * commits, instead of a pass (workflow task and activity) per commit; events wait at most this long more.
   */
  WEBHOOK_DISPATCH_WAKE_INTERVAL_MS: z.coerce.number().int().min(0).max(10_000).default(200),
};

/** Connector installs and their provider tokens. */
export const connectorSettings = {
  /** How long an install's authorization URL works: its state expires then and the install ends as expired. */
  CONNECTOR_INSTALL_TTL_SECONDS: seconds.default(30 * 60),
  /** A provider access token expiring within this many seconds is refreshed before it is handed out. */
  CONNECTOR_REFRESH_AHEAD_SECONDS: seconds.default(15 * 60),
  /** How often the background refresher looks for tokens expiring within CONNECTOR_REFRESH_AHEAD_SECONDS. */
  CONNECTOR_REFRESH_INTERVAL_SECONDS: seconds.default(60),
};

/** Escalation timeouts. */
export const escalationSettings = {
  /** Seconds a reviewer at each escalation level has before the routing moves up the chain. */
  ESCALATION_TIMEOUT_LOW_SECONDS: seconds.default(15 * 60),
  ESCALATION_TIMEOUT_MEDIUM_SECONDS: seconds.default(15 * 60),
  ESCALATION_TIMEOUT_HIGH_SECONDS: seconds.default(30 * 60),
  ESCALATION_TIMEOUT_URGENT_SECONDS: seconds.default(60 * 60),
};

/** The provenance ledger. */
export const ledgerSettings = {
  /**
   * The provenance ledger's origin: the first line of every checkpoint and the name of the log's key.
   * Fixed when the key is first created (checkpoints must stay verifiable); default: the host of
   * PUBLIC_BASE_URL (else HOST:PORT) followed by /ledger.
   */
  LEDGER_ORIGIN: z.string().optional(),
  /** A block is sealed into a signed checkpoint once it holds this many records… */
  LEDGER_BLOCK_MAX_LEAVES: z.coerce.number().int().positive().default(1000),
  /** …or once its oldest record has waited this long, whichever comes first. */
  LEDGER_BLOCK_MAX_AGE_MS: z.coerce.number().int().positive().default(5000),
  /** Health turns degraded once a record has waited this long for its checkpoint (the sealer is stuck or gone). */
  LEDGER_SEALING_LAG_ALERT_SECONDS: seconds.default(60),
};

/** Platform: approvals, agent executions and their callbacks, and the worker cache. */
export const platformSettings = {
  /** Seconds an approval request stays pending when the caller gives no expires_at, and the most it may ask for. */
  APPROVAL_DEFAULT_TTL_SECONDS: seconds.default(24 * 60 * 60),
  APPROVAL_MAX_TTL_SECONDS: seconds.default(30 * 24 * 60 * 60),
  /** Defaults of a registered agent: how long one call may take and how many attempts an execution makes. */
  AGENT_CALL_TIMEOUT_SECONDS: seconds.default(300),
  AGENT_CALL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** Backoff between attempts of an agent call: first wait, growth factor, longest wait. */
  AGENT_RETRY_INITIAL_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  AGENT_RETRY_BACKOFF_COEFFICIENT: z.coerce.number().min(1).max(10).default(2),
  AGENT_RETRY_MAX_INTERVAL_SECONDS: seconds.default(300),
  /** An agent call whose worker has not heartbeated for this long is taken as lost and retried elsewhere. */
  AGENT_HEARTBEAT_TIMEOUT_SECONDS: seconds.default(30),
  /** Largest agent answer kept as an execution's result_json. */
  AGENT_RESULT_LIMIT_BYTES: z.coerce.number().int().positive().max(1_048_576).default(262_144),
  /** Attempts and backoff of an execution's callback to its callback_url. */
  CALLBACK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(10),
  CALLBACK_RETRY_INITIAL_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  CALLBACK_RETRY_MAX_INTERVAL_SECONDS: seconds.default(60 * 60),
  /** How long a rotated callback signing secret keeps signing beside the new one. */
  CALLBACK_SECRET_ROTATION_GRACE_SECONDS: seconds.default(24 * 60 * 60),
  /**
   * Workflows a worker keeps in its cache. Small, so that thousands of waiting approvals and routings cost no
   * worker memory: an idle wait is evicted, and the signal that ends it replays a history of a few events.
   */
  TEMPORAL_WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(250),
  /** Workflow tasks the worker runs at once on the human-facing task queue (TEMPORAL_TASK_QUEUE); the SDK's default. */
  TEMPORAL_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).default(40),
  /**
   * The webhook deliveries' own budget, on their own task queue (`<TEMPORAL_TASK_QUEUE>-deliveries`), apart from the
   * human-facing one: workflow tasks at once. A delivery's POST is a local activity, which holds its workflow task
   * (and so a slot) until the receiver answers or OUTBOUND_TIMEOUT_MS passes.
   */
  TEMPORAL_DELIVERY_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).default(32),
  /** POSTs to receivers in flight at once (the deliveries' local activities). */
  TEMPORAL_DELIVERY_WORKER_MAX_CONCURRENT_SENDS: z.coerce.number().int().min(1).default(32),
  /** Delivery workflows the worker keeps in its cache (at least its workflow task slots). */
  TEMPORAL_DELIVERY_WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2).default(100),
  /**
   * How long a workflow task waits on the sticky queue of the worker that has the workflow cached before the
   * server gives it to any worker of the task queue (which replays the history); the SDK's default. A worker
   * gone without notice holds its workflows' next tasks this long.
   */
  TEMPORAL_WORKER_STICKY_QUEUE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(10_000),
};

/** Orchestration layer. */
export const orchestrationSettings = {
  /** How long an autonomous routing in escalation mode (the agent operations' default) stays open to an escalation. */
  AUTONOMOUS_ESCALATION_WINDOW_SECONDS: seconds.default(24 * 60 * 60),
  /**
   * How long after its decision an autonomous routing (any mode) can still be escalated by hand
   * (POST /v1/orch/escalation/manual): a supervisor who reviews what an agent did alone reopens it for a human.
   * 0: never.
   */
  ROUTING_REVIEW_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(7 * 24 * 60 * 60),
};
