import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import type { Knex } from 'knex';
import { countApprovalsByStatus } from '../../db/approvals';
import { pingDb } from '../../db/connection';
import { countDagsByStatus } from '../../db/dags';
import { countExecutionsByStatus } from '../../db/executions';
import { ledgerSealingLag } from '../../db/ledger';
import { ORCH_CORE_DID } from '../../domain/provenance/records';
import type { RiskLevel } from '../../domain/routing/risk';
import type { PlatformSettings } from '../platform/settings';
import { APPROVAL_WORKFLOW, type ApprovalWorkflow } from '../../contracts/approval';
import { PlatformStatusKey } from '../../contracts/search-attributes';
import { derivedId } from '../../lib/ids';

export interface HealthDeps {
  db: Knex;
  temporal: Client;
  taskQueue: string;
  settings: PlatformSettings;
}

export interface HealthCheck {
  name: string;
  status: 'pass' | 'fail';
  latency_ms: number;
  detail?: string;
}

export type HealthBucket = 'healthy' | 'degraded' | 'unhealthy';

const CHECK_TIMEOUT_MS = 2000;
/** A poller that has not polled for this long is gone: a live worker polls again within a minute. */
const POLLER_FRESH_SECONDS = 90;

async function timed(name: string, probe: () => Promise<string | undefined>): Promise<HealthCheck> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const detail = await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { name, status: 'pass', latency_ms: Math.round(performance.now() - started), ...(detail ? { detail } : {}) };
  } catch (error) {
    return {
      name,
      status: 'fail',
      latency_ms: Math.round(performance.now() - started),
      detail: (error as Error).message,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Workers polling the task queue for one kind of task, and how recently. */
async function pollers(deps: HealthDeps, type: 'workflow' | 'activity'): Promise<string> {
  const { pollers: seen } = await deps.temporal.workflowService.describeTaskQueue({
    namespace: deps.temporal.options.namespace,
    taskQueue: { name: deps.taskQueue, kind: proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType:
      type === 'workflow'
        ? proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW
        : proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  const now = Date.now() / 1000;
  const live = seen.filter((poller) => now - Number(poller.lastAccessTime?.seconds ?? 0) <= POLLER_FRESH_SECONDS);
  if (live.length === 0) throw new Error(`no worker polls the ${type} tasks of ${deps.taskQueue}`);
  return `${live.length} ${type} poller(s) on ${deps.taskQueue}`;
}

/** Records waiting for a signed checkpoint; failing once the oldest has waited longer than the alert age. */
async function sealingLag(deps: HealthDeps): Promise<string> {
  const lag = await ledgerSealingLag(deps.db);
  const age = lag.oldest_unsealed_age_seconds ?? 0;
  const summary = `${lag.unsealed_leaves} record(s) awaiting a checkpoint, the oldest for ${age.toFixed(1)} s; last sealed block ${lag.last_sealed_block ?? 'none'}`;
  if (age > deps.settings.ledgerSealingLagAlertSeconds)
    throw new Error(`sealing is behind (alert at ${deps.settings.ledgerSealingLagAlertSeconds} s): ${summary}`);
  return summary;
}

/**
 * The platform's dependencies, each checked for real: Postgres answers a query, Temporal its frontend,
 * workers poll the task queue for workflow and activity tasks, and the ledger's sealer keeps up. Postgres
 * or Temporal down is unhealthy; no worker polling or sealing behind is degraded (requests are taken,
 * work or proofs wait).
 */
export async function checkPlatform(deps: HealthDeps): Promise<{ bucket: HealthBucket; checks: HealthCheck[] }> {
  const checks = await Promise.all([
    timed('postgres', async () => {
      await pingDb(deps.db);
      return undefined;
    }),
    timed('temporal', async () => {
      const info = await deps.temporal.workflowService.getSystemInfo({});
      return info.serverVersion ? `server ${info.serverVersion}` : undefined;
    }),
    timed('workflow_pollers', () => pollers(deps, 'workflow')),
    timed('activity_pollers', () => pollers(deps, 'activity')),
    timed('ledger_sealing_lag', () => sealingLag(deps)),
  ]);
  const failed = new Set(checks.filter((check) => check.status === 'fail').map((check) => check.name));
  const bucket: HealthBucket =
    failed.has('postgres') || failed.has('temporal') ? 'unhealthy' : failed.size > 0 ? 'degraded' : 'healthy';
  return { bucket, checks };
}

/**
 * An organization's health check: when the platform is not healthy, a human is asked to look, through the
 * caller's organization's escalation queue (one item per organization and hour, so repeated checks do not
 * pile up).
 * The item is started without waiting for a worker, since missing workers may be why it is asked.
 */
export async function checkOrganization(
  deps: HealthDeps,
  organizationId: string,
  orgDid: string,
  now: Date,
): Promise<{ bucket: HealthBucket; checks: HealthCheck[]; escalation_id: string | null }> {
  const { bucket, checks } = await checkPlatform(deps);
  if (bucket === 'healthy') return { bucket, checks, escalation_id: null };
  const hour = now.toISOString().slice(0, 13);
  const approval_id = derivedId('apr', `${organizationId}:${orgDid}`, `health:${hour}`);
  const failing = checks.filter((check) => check.status === 'fail');
  const severity: RiskLevel = bucket === 'unhealthy' ? 'critical' : 'high';
  try {
    await deps.temporal.workflow.start<ApprovalWorkflow>(APPROVAL_WORKFLOW, {
      workflowId: approval_id,
      taskQueue: deps.taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
      typedSearchAttributes: [{ key: PlatformStatusKey, value: 'pending' }],
      args: [
        {
          approval_id,
          organization_id: organizationId,
          org_did: orgDid,
          requester_passport_id: ORCH_CORE_DID,
          action_description: `Platform health is ${bucket}: ${failing.map((check) => `${check.name} (${check.detail ?? 'failed'})`).join('; ')}. Acknowledge once handled.`,
          risk_level: severity,
          risk_factors: failing.map((check) => ({ factor: `check_failed:${check.name}`, severity })),
          request_data: { bucket, checks },
          alternatives: [],
          expires_at: new Date(now.getTime() + deps.settings.approvalDefaultTtlSeconds * 1000).toISOString(),
          requested_by: ORCH_CORE_DID,
        },
      ],
    });
    return { bucket, checks, escalation_id: approval_id };
  } catch (error) {
    // Already raised this hour and answered: that item stands for this hour.
    if ((error as Error).name === 'WorkflowExecutionAlreadyStartedError')
      return { bucket, checks, escalation_id: approval_id };
    return {
      bucket,
      checks: [
        ...checks,
        {
          name: 'escalation',
          status: 'fail',
          latency_ms: 0,
          detail: `could not raise an escalation: ${(error as Error).message}`,
        },
      ],
      escalation_id: null,
    };
  }
}

/** What waits on the organization's part of the platform now, from the read models. */
export async function platformWorkload(db: Knex, organizationId: string) {
  const [pendingApprovals, executions, runningWorkflows] = await Promise.all([
    countApprovalsByStatus(db, organizationId, 'pending'),
    countExecutionsByStatus(db, organizationId),
    countDagsByStatus(db, organizationId, 'running'),
  ]);
  return {
    pending_approvals: pendingApprovals,
    queued_executions: executions.queued ?? 0,
    processing_executions: executions.processing ?? 0,
    running_workflows: runningWorkflows,
  };
}
