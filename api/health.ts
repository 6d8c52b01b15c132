import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import { pingDb } from '../db/connection';
import type { ApiBuilder } from './route';
import { z } from './schemas/zod';

const CHECK_TIMEOUT_MS = 2000;

async function check(
  name: string,
  probe: () => Promise<unknown>,
): Promise<{ name: string; ok: boolean; error?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { name, ok: true };
  } catch (error) {
    return { name, ok: false, error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

const ReadinessSchema = z
  .object({
    status: z.enum(['ready', 'unavailable']),
    checks: z.array(z.object({ name: z.string(), ok: z.boolean(), error: z.string().optional() })),
  })
  .openapi('Readiness');

export function registerHealthRoutes(api: ApiBuilder, deps: { db: Knex; temporal: Client }): void {
  api.route({
    method: 'get',
    path: '/healthz',
    operationId: 'getLiveness',
    summary: 'Liveness: the process answers',
    tags: ['Operations'],
    auth: 'public',
    rateLimit: null,
    responses: { 200: { description: 'Alive', schema: z.object({ status: z.literal('ok') }) } },
    handler: () => ({ status: 200, body: { status: 'ok' } }),
  });

  api.route({
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    summary: 'Readiness: Postgres and Temporal both answer',
    tags: ['Operations'],
    auth: 'public',
    rateLimit: null,
    responses: {
      200: { description: 'Ready', schema: ReadinessSchema },
      503: { description: 'A dependency does not answer', schema: ReadinessSchema },
    },
    handler: async () => {
      const checks = await Promise.all([
        check('postgres', () => pingDb(deps.db)),
        check('temporal', () => deps.temporal.workflowService.getSystemInfo({})),
      ]);
      const ready = checks.every((c) => c.ok);
      return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'unavailable', checks } };
    },
  });
}
