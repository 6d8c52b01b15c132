import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import knex from 'knex';
import { appendProvenance } from '../../db/ledger';
import { mailerOf, smsSenderOf, workerSettings } from '../../app/deps';
import { createLogger } from '../../lib/logger';
import { createWorker } from '../../workers/create-worker';
import { startExtraApp } from '../support/app';
import { eventually } from '../support/eventually';
import { call, client, expectProblem } from '../support/http';
import { sharedWorkflowBundle, useStack } from '../support/stack';

let api: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  api = client(stack.baseUrl, await stack.token(['platform:write', 'platform:read']));
});

const names = (checks: Array<{ name: string; status: string }>) =>
  Object.fromEntries(checks.map((check) => [check.name, check.status]));

describe('platform health', () => {
  it('reports every check passing while Postgres, Temporal and a worker are up', async () => {
    const reply = await call(stack.baseUrl, 'GET', '/v1/platform/health');
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe('healthy');
    expect(names(reply.body.checks)).toEqual({
      postgres: 'pass',
      temporal: 'pass',
      workflow_pollers: 'pass',
      activity_pollers: 'pass',
      ledger_sealing_lag: 'pass',
    });
    expect(reply.body.checks.find((check: { name: string }) => check.name === 'workflow_pollers').detail).toContain(
      stack.taskQueue,
    );

    const org = await api('POST', '/v1/health/check', { json: { orgDid: 'did:web:acme.example' } });
    expect(org.body).toMatchObject({ bucket: 'healthy', escalation_id: null });
  });

  it('reports the workload waiting on the platform', async () => {
    await api('POST', '/v1/approvals', { json: { requester_passport_id: 'did:web:x:y', action_description: 'wait' } });
    const reply = await api('GET', '/v1/platform/status');
    expect(reply.body).toMatchObject({
      status: 'healthy',
      task_queue: stack.taskQueue,
      workload: { pending_approvals: 1, queued_executions: 0, processing_executions: 0, running_workflows: 0 },
    });
    expectProblem(await call(stack.baseUrl, 'GET', '/v1/platform/status'), 401, 'unauthorized');
  });

  it('is degraded when no worker polls the task queue, and raises one escalation per organization and hour', async () => {
    const app = await startExtraApp(stack, { config: { TEMPORAL_TASK_QUEUE: `nobody-polls-${Date.now()}` } });
    try {
      const health = await call(app.baseUrl, 'GET', '/v1/platform/health');
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('degraded');
      expect(names(health.body.checks)).toEqual({
        postgres: 'pass',
        temporal: 'pass',
        workflow_pollers: 'fail',
        activity_pollers: 'fail',
        ledger_sealing_lag: 'pass',
      });

      const org = 'did:web:degraded.example';
      const first = await call(app.baseUrl, 'POST', '/v1/health/check', {
        token: await stack.token(['platform:write']),
        json: { orgDid: org },
      });
      expect(first.body).toMatchObject({ bucket: 'degraded', escalation_id: expect.stringMatching(/^apr_/) });
      const again = await call(app.baseUrl, 'POST', '/v1/health/check', {
        token: await stack.token(['platform:write']),
        json: { orgDid: org },
      });
      expect(again.body.escalation_id).toBe(first.body.escalation_id);
      const escalation = await (await stack.startedWorkflow(first.body.escalation_id)).describe();
      expect(escalation).toMatchObject({ type: 'approvalWorkflow', status: { name: 'RUNNING' } });
    } finally {
      await app.close();
    }
  });

  it('is unhealthy (503) when Postgres does not answer', async () => {
    const quiet = { warn() {}, error() {}, debug() {}, deprecate() {} };
    const db = knex({
      client: 'pg',
      connection: 'postgres://postgres@127.0.0.1:1/x',
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 1000,
      log: quiet,
    });
    const app = await startExtraApp(stack, { db });
    try {
      const health = await call(app.baseUrl, 'GET', '/v1/platform/health');
      expect(health.status).toBe(503);
      expect(health.body.status).toBe('unhealthy');
      expect(names(health.body.checks)).toEqual({
        postgres: 'fail',
        temporal: 'pass',
        workflow_pollers: 'pass',
        activity_pollers: 'pass',
        ledger_sealing_lag: 'fail',
      });
    } finally {
      await app.close();
      await db.destroy();
    }
  });

  it('is unhealthy when Temporal does not answer, and says it could not raise an escalation', async () => {
    const connection = await Connection.connect({ address: stack.config.TEMPORAL_ADDRESS });
    const app = await startExtraApp(stack, {
      temporal: new Client({ connection, namespace: stack.config.TEMPORAL_NAMESPACE }),
    });
    await connection.close();
    try {
      const health = await call(app.baseUrl, 'GET', '/v1/platform/health');
      expect(health.status).toBe(503);
      expect(names(health.body.checks)).toMatchObject({ postgres: 'pass', temporal: 'fail', workflow_pollers: 'fail' });
      const org = await call(app.baseUrl, 'POST', '/v1/health/check', {
        token: await stack.token(['platform:write']),
        json: { orgDid: 'did:web:acme.example' },
      });
      expect(org.body).toMatchObject({ bucket: 'unhealthy', escalation_id: null });
      expect(names(org.body.checks).escalation).toBe('fail');
    } finally {
      await app.close();
    }
  });

  it('is degraded while records wait for their checkpoint longer than the alert age, and healthy once the sealer catches up', async () => {
    const app = await startExtraApp(stack, { config: { LEDGER_SEALING_LAG_ALERT_SECONDS: 1 } });
    // With no worker, nothing seals: the record appended now waits.
    await stack.stopWorker();
    try {
      await appendProvenance(stack.database.db, {
        entry: {
          subject_id: 'health-lag',
          step_id: 'waiting',
          timestamp: new Date().toISOString(),
          actor: { type: 'orch_core' },
          action: 'probe',
          input_data: {},
          output_data: {},
          reasoning: 'waits for a seal',
        },
      });
      const behind = await eventually(
        () => call(app.baseUrl, 'GET', '/v1/platform/health'),
        (reply) => names(reply.body.checks).ledger_sealing_lag === 'fail',
      );
      expect(behind.status).toBe(200);
      expect(behind.body.status).toBe('degraded');
      expect(behind.body.checks.find((check: { name: string }) => check.name === 'ledger_sealing_lag').detail).toMatch(
        /^sealing is behind \(alert at 1 s\): 1 record\(s\) awaiting a checkpoint/,
      );
    } finally {
      await stack.startWorker();
    }
    try {
      const caughtUp = await eventually(
        () => call(app.baseUrl, 'GET', '/v1/platform/health'),
        (reply) => reply.body.status === 'healthy',
      );
      expect(names(caughtUp.body.checks).ledger_sealing_lag).toBe('pass');
    } finally {
      await app.close();
    }
  });

  it('shows a raised escalation in the organization’s escalation queue once a worker comes to run it', async () => {
    const taskQueue = `late-worker-${Date.now()}`;
    const orgDid = 'did:web:late-worker.example';
    const app = await startExtraApp(stack, { config: { TEMPORAL_TASK_QUEUE: taskQueue } });
    let raised;
    try {
      raised = await call(app.baseUrl, 'POST', '/v1/health/check', {
        token: await stack.token(['platform:write']),
        json: { orgDid },
      });
    } finally {
      await app.close();
    }
    expect(raised.body).toMatchObject({ bucket: 'degraded', escalation_id: expect.stringMatching(/^apr_/) });
    expect((await api('GET', `/v1/escalations?orgDid=${encodeURIComponent(orgDid)}`)).body.data).toEqual([]);

    const connection = await NativeConnection.connect({ address: stack.config.TEMPORAL_ADDRESS });
    const worker = await createWorker({
      connection,
      namespace: stack.config.TEMPORAL_NAMESPACE,
      taskQueue,
      db: stack.database.db,
      workflowBundle: await sharedWorkflowBundle(),
      settings: workerSettings(stack.config),
      mailer: mailerOf(stack.config),
      sms: smsSenderOf(stack.config),
      logger: createLogger({ level: 'error', silent: true }),
    });
    const queue = await worker.runUntil(
      eventually(
        () => api('GET', `/v1/escalations?orgDid=${encodeURIComponent(orgDid)}`),
        (reply) => reply.body.data.length === 1,
      ),
    );
    await connection.close();
    expect(queue.body.data[0]).toMatchObject({
      id: raised.body.escalation_id,
      status: 'pending',
      org_did: orgDid,
      requester_passport_id: 'did:web:handoff.local:orch-core',
      risk_level: 'high',
      risk_factors: [
        { factor: 'check_failed:workflow_pollers', severity: 'high' },
        { factor: 'check_failed:activity_pollers', severity: 'high' },
      ],
      action_description: expect.stringContaining('Platform health is degraded'),
    });
  });
});
