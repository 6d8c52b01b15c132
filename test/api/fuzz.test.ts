import fc from 'fast-check';
import { grants, type Scope, SCOPES } from '../../services/identity/scopes';
import { startExtraApp, type ExtraApp } from '../support/app';
import { call } from '../support/http';
import {
  createDocumentValidator,
  operationsOf,
  type DocumentValidator,
  type OpenApiDocument,
  type Operation,
} from '../support/openapi-document';
import { answerViolations, readRequest, shapeRefusal } from '../support/openapi-contract';
import {
  dependencyOrder,
  HarvestPool,
  requestArbitrary,
  resourceNamesOf,
  type AuthChoice,
  type RequestOptions,
} from '../support/openapi-requests';
import { send, shownWire, wireRequest, type WireContext } from '../support/openapi-wire';
import { startRemoteParty, type RemoteParty } from '../support/remote-party';
import { startStack, type Stack } from '../support/stack';

/*
 * Every operation of the served OpenAPI document, fed requests generated from its own schemas. The defaults
 * (a fixed seed, DEFAULT_RUNS per operation) keep the file within a few minutes on two cores. Deeper:
 *   HANDOFF_FUZZ_RUNS=500 HANDOFF_FUZZ_SEED=$RANDOM npx jest test/api/fuzz.test.ts
 * and HANDOFF_FUZZ_OPERATIONS=createRouting,/v1/agents (operation ids or path fragments) to run only some.
 */
const DEFAULT_RUNS = 20;
const RUNS = Number(process.env.HANDOFF_FUZZ_RUNS ?? DEFAULT_RUNS);
const SEED = Number(process.env.HANDOFF_FUZZ_SEED ?? 20261123);
const ONLY = (process.env.HANDOFF_FUZZ_OPERATIONS ?? '').split(',').filter(Boolean);
/** More runs get proportionally more time; HANDOFF_FUZZ_BUDGET_MS overrides the whole file's. */
const SCALE = Math.max(1, RUNS / DEFAULT_RUNS);
const BUDGET_MS = Number(process.env.HANDOFF_FUZZ_BUDGET_MS ?? 180_000 * SCALE);
/**
 * Every operation runs at least this many requests, however slow the machine: each gets a share of what is left of
 * the budget, so a slow machine gives each fewer runs rather than none to the last operations. Past its share an
 * operation's remaining runs pass without a request.
 */
const MIN_RUNS = Math.min(RUNS, 5);
/** What one operation may spend, runs and shrinking included; past it the operation fails as interrupted. */
const OPERATION_BUDGET_MS = 20_000 * SCALE;
/** One request may take this long before it counts as a hang. */
const REQUEST_TIMEOUT_MS = 5_000;

const RATE_LIMIT_KEYS = [
  'RATE_LIMIT_ROUTING_REQUESTS',
  'RATE_LIMIT_SAFETY_CHECKS',
  'RATE_LIMIT_PROVENANCE_QUERIES',
  'RATE_LIMIT_AGENT_MONITORING',
  'RATE_LIMIT_AUDIT_LOGS',
  'RATE_LIMIT_DEFAULT',
] as const;
const rateLimits = <T>(limit: T) =>
  Object.fromEntries(RATE_LIMIT_KEYS.map((key) => [key, limit])) as Record<(typeof RATE_LIMIT_KEYS)[number], T>;

let stack: Stack;
/** Another instance on the same database whose rate limits are spent: what an operation answers at its limit. */
let spent: ExtraApp;
/** Where webhooks and callbacks generated with its URL go: a receiver that answers 200, so that deliveries exist. */
let receiver: RemoteParty;
let document: OpenApiDocument;
let validator: DocumentValidator;

beforeAll(async () => {
  receiver = await startRemoteParty();
  // Limits out of reach, so that the runs reach the operations rather than 429; a few go to `spent` instead.
  stack = await startStack({ ...rateLimits('1000000000'), OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' });
  spent = await startExtraApp(stack, { config: rateLimits(1) });
  document = (await call(stack.baseUrl, 'GET', '/openapi.json')).body as OpenApiDocument;
  validator = createDocumentValidator(document);
});
// The receiver goes first, so that calls still in flight fail at once instead of holding up the worker's shutdown.
afterAll(async () => {
  await receiver?.close();
  await spent?.close();
  await stack?.stop();
});

/**
 * The document the requests are generated from: a long-poll's wait (a parameter marked x-long-poll) is at most a
 * second there. A valid wait holds the answer back on purpose, up to a minute, which is no hang but would spend the
 * budget; the answers are still judged by the served document.
 */
function withShortLongPolls(served: OpenApiDocument): OpenApiDocument {
  const generated = structuredClone(served);
  for (const item of Object.values(generated.paths)) {
    for (const operation of Object.values(item)) {
      for (const parameter of operation.parameters ?? [])
        if ((parameter as { 'x-long-poll'?: boolean })['x-long-poll']) parameter.schema.maximum = 1;
    }
  }
  return generated;
}

function selected(operations: Operation[]): Operation[] {
  return ONLY.length === 0
    ? operations
    : operations.filter((operation) => ONLY.some((wanted) => operation.label.includes(wanted)));
}

/** The Authorization header of each choice, per required scope: every scope, none, a token of another scope, garbage. */
async function authorizations(
  operations: Operation[],
): Promise<Map<string | undefined, Record<AuthChoice, string | undefined>>> {
  const everyScope = `Bearer ${await stack.token()}`;
  const noScopes = `Bearer ${await stack.token([])}`;
  const byScope = new Map<string | undefined, Record<AuthChoice, string | undefined>>();
  for (const scope of new Set(operations.map((operation) => operation.scope))) {
    const wrong = SCOPES.find((candidate) => scope !== undefined && !grants([candidate], scope as Scope));
    byScope.set(scope, {
      'every-scope': everyScope,
      'no-token': undefined,
      'no-scopes': noScopes,
      'wrong-scope': wrong ? `Bearer ${await stack.token([wrong])}` : noScopes,
      'malformed-token': 'Bearer not.a.token',
    });
  }
  return byScope;
}

/**
 * Runs the property of one operation, at least MIN_RUNS requests and more while within its share of the budget;
 * on failure, fast-check's report with the shrunk counterexample and what went wrong.
 */
async function fuzz(
  operation: Operation,
  options: RequestOptions,
  context: WireContext,
  shareMs: number,
): Promise<string | undefined> {
  const softDeadline = Date.now() + shareMs;
  let sent = 0;
  const property = fc.asyncProperty(requestArbitrary(document, operation, options), async (plan) => {
    if (sent >= MIN_RUNS && Date.now() > softDeadline) return;
    sent += 1;
    const reading = readRequest(operation, validator, plan, context.pool);
    const wire = wireRequest(operation, plan, context);
    const answer = await send(plan.overRateLimit ? spent.baseUrl : stack.baseUrl, wire, REQUEST_TIMEOUT_MS).catch(
      (error: unknown) => {
        throw new Error(`- ${error instanceof Error ? error.message : String(error)}\n--- request\n${shownWire(wire)}`);
      },
    );
    if (answer.status >= 200 && answer.status < 300) context.pool.harvest(answer.json);
    const refusal = shapeRefusal(reading, answer);
    const violations = [
      ...reading.violations,
      ...answerViolations(operation, validator, answer),
      ...(refusal ? [refusal] : []),
    ];
    if (violations.length > 0) {
      const shownAnswer = `${answer.status} ${answer.headers['content-type'] ?? '(no content type)'}\n${answer.text.slice(0, 2_000)}`;
      throw new Error(
        `${violations.map((violation) => `- ${violation}`).join('\n')}\n--- request\n${shownWire(wire)}\n--- answer\n${shownAnswer}`,
      );
    }
  });
  const details = await fc.check(property, {
    seed: SEED,
    numRuns: RUNS,
    plugins: [fc.interruptAfterTimeLimit(OPERATION_BUDGET_MS, { failOnInterrupt: true })],
  });
  if (!details.failed) return undefined;
  const error = details.errorInstance instanceof Error ? `\n${details.errorInstance.message}` : '';
  const operationId = /\((\w+)\)$/.exec(operation.label)?.[1] ?? operation.path;
  return `${fc.defaultReportMessage(details) ?? 'The property failed'}${error}\n(${sent} requests sent)\nAgain: HANDOFF_FUZZ_SEED=${SEED} HANDOFF_FUZZ_RUNS=${RUNS} HANDOFF_FUZZ_OPERATIONS=${operationId}`;
}

describe('every operation of the OpenAPI document', () => {
  it(
    'answers generated and hostile requests within its contract: no 5xx, documented statuses and bodies, RFC 9457 errors, no hangs',
    async () => {
      const generated = withShortLongPolls(document);
      const all = operationsOf(generated);
      const operations = selected(dependencyOrder(generated, all));
      expect(operations.length).toBeGreaterThan(0);
      const options: RequestOptions = { resourceNames: resourceNamesOf(all), destinations: [receiver.url] };
      const pool = new HarvestPool(options.resourceNames);
      const byScope = await authorizations(operations);
      const deadline = Date.now() + BUDGET_MS;
      const failures: string[] = [];
      for (const [index, operation] of operations.entries()) {
        // Twice an even share of what is left: most operations need far less, and what they leave goes to the rest.
        const share = (2 * Math.max(0, deadline - Date.now())) / (operations.length - index);
        const failure = await fuzz(operation, options, { authorization: byScope.get(operation.scope)!, pool }, share);
        if (failure) failures.push(`${operation.label}\n${failure}`);
      }
      if (failures.length > 0) {
        throw new Error(
          `${failures.length} of ${operations.length} operations broke their contract (seed ${SEED}, ${MIN_RUNS} to ${RUNS} runs each):\n\n${failures.join('\n\n')}`,
        );
      }
    },
    // Past the budget only by the operations' minimum runs: a request that hangs fails at REQUEST_TIMEOUT_MS.
    2 * BUDGET_MS + 60_000,
  );
});
