/**
 * `npm run bench -- orchestration`: what escalation rules cost, and the agent operation /route.
 *
 *   1. The pure rule evaluator in this process: decisions per second over 1, 100 and 10,000 enabled rules
 *      (evaluateRules alone, and the whole four-moment decision with those rules in scope).
 *   2. POST /v1/orch/routing end to end (spawned API and worker, real Temporal and Postgres) at
 *      concurrency 32, with no rule enabled against 1,000 enabled rules, in alternating rounds; the
 *      target is a p99 within 1.2× of the no-rule figure. The 1,000 rules are scoped as real rule sets
 *      are (a task type each, a few for every task), so a routing loads and evaluates the rules of its
 *      scope; a third configuration enables 1,000 rules that are all in every routing's scope, the worst
 *      case, reported beside it.
 *   3. POST /v1/orch/route p50/p99 at concurrency 32, called with a registered agent's API key.
 *
 * Writes bench-results/orchestration.json.
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { bumpRuleSetVersion, insertRule } from '../../db/escalation-rules';
import type { Condition, RoutingFacts } from '../../domain/rules/conditions';
import { evaluateRules, ruleScope, RULE_PRIORITIES, type EscalationRule } from '../../domain/rules/escalation-rules';
import { DEFAULT_RISK_THRESHOLDS, RISK_LEVELS } from '../../domain/routing/risk';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { decideRoutingMoments } from '../../domain/routing/moments';
import { registerAgent } from '../../services/agents/registry';
import type { Principal } from '../../services/identity/scopes';
import { runClosedLoop, summarize, type LoadFigures, type LoadRun, type Send } from './load';
import { writeResults } from './report';
import { runSuite, say, settle, startBenchStack, unlessAServiceDies, type BenchStack } from './stack';

const EVALUATOR_RULE_COUNTS = [1, 100, 10_000];
const EVALUATOR_SECONDS = 1.5;
const END_TO_END_RULES = 1000;
const TASK_TYPES = 49;
/** Of the scoped set, this many rules name no task type, so every routing evaluates them. */
const GENERIC_RULES = 20;
const REQUESTS_PER_CONFIGURATION = 1600;
const WARM_UP_REQUESTS = 200;
const ROUNDS = 4;
const CONCURRENCY = 32;
const TARGET_P99_RATIO = 1.2;
const TASK_QUEUE = 'bench-orchestration';
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'orchestration.json');

/** mulberry32: a small seeded generator, so every run evaluates the same rules. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What this suite talks to: the shared stack, the API's address, a token with every scope. */
interface Bench {
  stack: BenchStack;
  baseUrl: string;
  token: string;
}

/** `count` requests at `concurrency`, failing fast if a service dies. */
const closedLoop = (bench: Bench, options: { count: number; concurrency: number; send: Send; firstIndex?: number }) =>
  unlessAServiceDies(runClosedLoop(options), [bench.stack.api, bench.stack.worker]);

/** Until the services and Temporal are idle again, so one round's leftovers are not billed to the next. */
const settleAfterRound = (bench: Bench) =>
  settle([bench.stack.api.pid, bench.stack.worker.pid, ...bench.stack.temporalPids], {
    windowMs: 250,
    busyFraction: 0.1,
    timeoutMs: 10_000,
  });

async function runRound(label: string, run: () => Promise<LoadRun>): Promise<LoadRun> {
  const result = await run();
  const { p99Ms, throughputPerSecond, errors, errorSamples } = summarize([result]);
  say(`  ${label}: ${throughputPerSecond.toFixed(0)} req/s, p99 ${p99Ms.toFixed(0)} ms, ${errors} errors`);
  for (const sample of errorSamples) say(`    error: ${sample}`);
  return result;
}

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

/** Rules of every condition type and operator the language has, for the in-process evaluator. */
function mixedRules(count: number, next: () => number): EscalationRule[] {
  const conditionOf = (): Condition => {
    switch (Math.floor(next() * 6)) {
      case 0:
        return {
          condition_type: 'risk_level',
          operator: pick(next, ['>=', '<', '==']),
          value: pick(next, RISK_LEVELS),
        };
      case 1:
        return {
          condition_type: 'domain',
          operator: pick(next, ['==', '!=']),
          value: pick(next, ['finance', 'healthcare', 'general', 'legal']),
        };
      case 2:
        return {
          condition_type: 'ai_confidence',
          operator: pick(next, ['<', '<=', '>']),
          value: Math.round(next() * 100) / 100,
        };
      case 3:
        return {
          condition_type: 'task_type',
          operator: 'in',
          value: [`t${Math.floor(next() * 50)}`, `t${Math.floor(next() * 50)}`],
        };
      case 4:
        return { condition_type: 'amount', operator: pick(next, ['>=', '>']), value: Math.floor(next() * 100_000) };
      default:
        return {
          condition_type: 'context.region',
          operator: pick(next, ['==', 'not_in']),
          value: pick(next, ['EU', 'US', 'APAC']),
        };
    }
  };
  return Array.from({ length: count }, (_, index) => ({
    rule_id: `er_bench_${index}`,
    rule_name: `bench ${index}`,
    priority: pick(next, RULE_PRIORITIES),
    conditions: Array.from({ length: 1 + Math.floor(next() * 3) }, conditionOf),
    actions: [
      {
        action: 'escalate_to_human',
        target_capability: pick(next, ['general_review', 'financial_approval', 'medical_diagnosis']),
        min_weight: 0.5,
        urgency: pick(next, ['low', 'medium', 'high', 'urgent'] as const),
      },
    ],
  }));
}

function mixedFacts(count: number, next: () => number): RoutingFacts[] {
  return Array.from({ length: count }, () => ({
    task_type: `t${Math.floor(next() * 50)}`,
    domain: pick(next, ['finance', 'healthcare', 'general', 'legal']),
    risk_level: pick(next, RISK_LEVELS),
    ai_confidence: next(),
    context: { amount: Math.floor(next() * 120_000), region: pick(next, ['EU', 'US', 'APAC']) },
  }));
}

/** Runs `decide` over the facts in turn for EVALUATOR_SECONDS; decisions per second. */
function rate(facts: RoutingFacts[], decide: (facts: RoutingFacts) => unknown): number {
  let decisions = 0;
  const started = performance.now();
  while (performance.now() - started < EVALUATOR_SECONDS * 1000 || decisions < 3) {
    decide(facts[decisions % facts.length]!);
    decisions += 1;
  }
  return decisions / ((performance.now() - started) / 1000);
}

interface EvaluatorFigures {
  rules: number;
  /** evaluateRules over every rule: conditions, priority and conflicts. */
  evaluateRulesPerSecond: number;
  /** decideRoutingMoments with every rule in scope: the four moments, boundaries and Rule of Threes included. */
  fullDecisionsPerSecond: number;
}

function benchEvaluator(): EvaluatorFigures[] {
  say('Pure evaluator, in this process:');
  const next = random(42);
  const facts = mixedFacts(500, next);
  return EVALUATOR_RULE_COUNTS.map((count) => {
    const rules = mixedRules(count, next);
    const evaluateRulesPerSecond = rate(facts, (f) => evaluateRules(rules, f));
    const safety = { domain: 'general', boundaries: [], risk_thresholds: DEFAULT_RISK_THRESHOLDS, task_types: [] };
    const fullDecisionsPerSecond = rate(facts, (f) =>
      decideRoutingMoments({
        task: {
          task_type: f.task_type,
          context: f.context,
          ai_agent_id: 'urn:bench:agent:x:1',
          ai_confidence: f.ai_confidence,
          required_capabilities: [],
          safety_requirements: {},
          escalation_conditions: {},
        },
        agent: null,
        domain: f.domain,
        safety,
        rules,
        rule_set: { version: 1, enabled: count },
      }),
    );
    say(
      `  ${String(count).padStart(6)} rules: ${evaluateRulesPerSecond.toFixed(0)} rule-set evaluations/s, ${fullDecisionsPerSecond.toFixed(0)} full decisions/s`,
    );
    return { rules: count, evaluateRulesPerSecond, fullDecisionsPerSecond };
  });
}

type Configuration = 'no_rules' | 'rules_1000_scoped' | 'rules_1000_all_in_scope';
const CONFIGURATIONS: Configuration[] = ['no_rules', 'rules_1000_scoped', 'rules_1000_all_in_scope'];
const ENABLED_PREFIX: Record<Configuration, string | null> = {
  no_rules: null,
  rules_1000_scoped: 'bench-scoped-',
  rules_1000_all_in_scope: 'bench-generic-',
};

/**
 * Conditions that never hold for the bench's traffic (its confidences are 0.5 and 0.95), so every
 * configuration decides the same way and only evaluating the rules differs.
 */
const quiet = (index: number): Condition[] => [
  { condition_type: 'ai_confidence', operator: '<', value: 0.3 },
  { condition_type: 'amount', operator: '>=', value: 50_000 + index },
];

/** Seeded straight into the table (the API would check each against all the others first: set-up, not the measurement). */
async function seedRules(bench: Bench): Promise<void> {
  const next = random(7);
  const rows = [
    ...Array.from({ length: END_TO_END_RULES - GENERIC_RULES }, (_, i) => ({
      name: `bench-scoped-${i}`,
      conditions: [
        { condition_type: 'task_type', operator: '==' as const, value: `bench_t${i % TASK_TYPES}` },
        ...quiet(i),
      ],
    })),
    ...Array.from({ length: GENERIC_RULES }, (_, i) => ({ name: `bench-scoped-generic-${i}`, conditions: quiet(i) })),
    ...Array.from({ length: END_TO_END_RULES }, (_, i) => ({ name: `bench-generic-${i}`, conditions: quiet(i) })),
  ];
  await bench.stack.database.db.transaction(async (trx) => {
    for (const row of rows) {
      const scope = ruleScope(row.conditions);
      await insertRule(trx, {
        rule_id: `er_${randomUUIDFrom(next)}`,
        created_by: 'bench',
        organization_id: DEFAULT_ORGANIZATION_ID,
        rule_name: row.name,
        description: '',
        conditions: row.conditions,
        actions: [
          {
            action: 'escalate_to_human',
            target_capability: 'general_review',
            min_weight: 0.5,
            urgency: pick(next, ['low', 'medium', 'high', 'urgent'] as const),
          },
        ],
        priority: pick(next, RULE_PRIORITIES),
        enabled: false,
        applies_to: scope.task_types ?? ['*'],
        trigger_rate: {
          estimated_trigger_rate: 'n/a',
          routings_replayed: 0,
          routings_triggered: 0,
          window_days: 30,
          computed_at: new Date().toISOString(),
        },
        scope_task_types: scope.task_types,
        scope_domains: scope.domains,
      });
    }
  });
}

function randomUUIDFrom(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Enables exactly the rules of a configuration, as an admin's change would (the rule set's version moves). */
async function enable(bench: Bench, configuration: Configuration): Promise<void> {
  const prefix = ENABLED_PREFIX[configuration];
  const { db } = bench.stack.database;
  await db.transaction(async (trx) => {
    await trx('escalation_rules').update({ enabled: prefix ? trx.raw('starts_with(rule_name, ?)', [prefix]) : false });
    await bumpRuleSetVersion(trx);
  });
  const [row] = await db('escalation_rules').where({ enabled: true }).count<{ count: number }[]>({ count: '*' });
  const count = row?.count ?? 0;
  const expected = prefix ? END_TO_END_RULES : 0;
  if (count !== expected) throw new Error(`${configuration}: ${count} rules enabled, expected ${expected}`);
}

/** Half the tasks go to a human (a reviewer holds general_review), half stay with the agent. */
function routingSend(bench: Bench): Send {
  const headers = { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' };
  return async (index) => {
    const human = index % 2 === 0;
    const body = JSON.stringify({
      task_type: `bench_t${index % TASK_TYPES}`,
      ai_agent_id: 'urn:bench:agent:router:1',
      ai_confidence: human ? 0.5 : 0.95,
      required_capabilities: [{ capability_id: 'general_review', min_weight: 0.5 }],
    });
    const response = await fetch(`${bench.baseUrl}/v1/orch/routing`, { method: 'POST', headers, body });
    const text = await response.text();
    if (response.status !== 200) return { ok: false, error: `HTTP ${response.status}: ${text.slice(0, 300)}` };
    const decision = (JSON.parse(text) as { decision?: string }).decision;
    const expected = human ? 'escalate_to_human' : 'ai_autonomous';
    return decision === expected
      ? { ok: true }
      : { ok: false, error: `decision ${decision ?? 'missing'}, expected ${expected}` };
  };
}

function agentRouteSend(bench: Bench, apiKey: string, runId: string): Send {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  return async (index) => {
    const confidence = index % 2 === 0 ? 0.5 : 0.95;
    const body = JSON.stringify({
      task_id: `${runId}-${index}`,
      task_type: `bench_t${index % TASK_TYPES}`,
      ai_assessment: { can_handle: true, confidence },
      required_capabilities: [{ capability_id: 'general_review', min_weight: 0.5 }],
    });
    const response = await fetch(`${bench.baseUrl}/v1/orch/route`, {
      method: 'POST',
      headers: { ...headers, 'x-confidence-score': String(confidence) },
      body,
    });
    const text = await response.text();
    if (response.status !== 200) return { ok: false, error: `HTTP ${response.status}: ${text.slice(0, 300)}` };
    const answer = JSON.parse(text) as { routing_decision?: string; fourth_law_triggered?: boolean };
    return answer.fourth_law_triggered === confidence < 0.7
      ? { ok: true }
      : {
          ok: false,
          error: `fourth_law_triggered ${String(answer.fourth_law_triggered ?? 'missing')} at ${confidence}`,
        };
  };
}

const figures = (runs: LoadRun[]): LoadFigures => summarize(runs);
const fixed = (value: number, digits = 1) => value.toFixed(digits);

async function main(): Promise<void> {
  const evaluator = benchEvaluator();

  // More routings than the default hourly limit of routing requests.
  const { stack, baseUrl, token } = await startBenchStack({
    taskQueue: TASK_QUEUE,
    env: { RATE_LIMIT_ROUTING_REQUESTS: '1000000' },
  });
  const bench: Bench = { stack, baseUrl, token };
  say(`Seeding ${END_TO_END_RULES} scoped and ${END_TO_END_RULES} all-in-scope escalation rules (disabled)…`);
  await seedRules(bench);
  const send = routingSend(bench);
  const load = (count: number, firstIndex: number) => () =>
    closedLoop(bench, { count, concurrency: CONCURRENCY, send, firstIndex });

  say(`Warm-up: ${WARM_UP_REQUESTS} routings at concurrency ${CONCURRENCY}…`);
  await enable(bench, 'rules_1000_scoped');
  await runRound('warm-up', load(WARM_UP_REQUESTS, 0));

  const runs: Record<Configuration, LoadRun[]> = { no_rules: [], rules_1000_scoped: [], rules_1000_all_in_scope: [] };
  const perRound = REQUESTS_PER_CONFIGURATION / ROUNDS;
  say(
    `Measuring POST /v1/orch/routing: ${REQUESTS_PER_CONFIGURATION} routings per configuration at concurrency ${CONCURRENCY}, in ${ROUNDS} rounds…`,
  );
  let index = WARM_UP_REQUESTS;
  for (let round = 0; round < ROUNDS; round += 1) {
    // Each configuration takes every place in the order in turn.
    const order = CONFIGURATIONS.map((_, i) => CONFIGURATIONS[(i + round) % CONFIGURATIONS.length]!);
    for (const configuration of order) {
      await enable(bench, configuration);
      await settleAfterRound(bench);
      runs[configuration].push(await runRound(`round ${round + 1} ${configuration}`, load(perRound, index)));
      index += perRound;
    }
  }
  const routing = Object.fromEntries(
    CONFIGURATIONS.map((configuration) => [configuration, figures(runs[configuration])]),
  ) as Record<Configuration, LoadFigures>;
  const ratioScoped = routing.rules_1000_scoped.p99Ms / routing.no_rules.p99Ms;
  const ratioAll = routing.rules_1000_all_in_scope.p99Ms / routing.no_rules.p99Ms;

  await enable(bench, 'no_rules');
  const principal: Principal = {
    id: 'bench',
    kind: 'jwt',
    subject: 'bench',
    scopes: ['orch:admin'],
    organization_id: DEFAULT_ORGANIZATION_ID,
  };
  const registered = await registerAgent(
    stack.database.db,
    {
      agent_id: 'urn:bench:agent:route:1',
      agent_name: 'bench',
      agent_type: 'route',
      capabilities: [],
      safety_constraints: {},
      model_info: {},
    },
    principal,
  );
  if (!registered.ok) throw new Error('could not register the bench agent');
  const routeSend = agentRouteSend(bench, registered.api_key, randomBytes(4).toString('hex'));
  say(
    `Measuring POST /v1/orch/route: ${REQUESTS_PER_CONFIGURATION} calls at concurrency ${CONCURRENCY} with the agent's key…`,
  );
  await runRound('warm-up', () =>
    closedLoop(bench, { count: WARM_UP_REQUESTS, concurrency: CONCURRENCY, send: routeSend }),
  );
  await settleAfterRound(bench);
  const routeRun = await runRound('/route', () =>
    closedLoop(bench, {
      count: REQUESTS_PER_CONFIGURATION,
      concurrency: CONCURRENCY,
      send: routeSend,
      firstIndex: WARM_UP_REQUESTS,
    }),
  );
  const route = figures([routeRun]);

  const results = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version, database: stack.database.kind },
    settings: {
      requestsPerConfiguration: REQUESTS_PER_CONFIGURATION,
      warmUpRequests: WARM_UP_REQUESTS,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
      taskTypes: TASK_TYPES,
      genericRulesInScopedSet: GENERIC_RULES,
    },
    evaluator,
    routing,
    ratios: { p99ScopedOverNoRules: ratioScoped, p99AllInScopeOverNoRules: ratioAll },
    target: {
      maxP99Ratio: TARGET_P99_RATIO,
      pass: routing.rules_1000_scoped.errors === 0 && ratioScoped <= TARGET_P99_RATIO,
    },
    route,
  };

  say('');
  say('POST /v1/orch/routing               requests  errors   p50 ms   p99 ms   req/s   p99 / no rules');
  for (const configuration of CONFIGURATIONS) {
    const f = routing[configuration];
    const ratio = f.p99Ms / routing.no_rules.p99Ms;
    say(
      `  ${configuration.padEnd(32)} ${String(f.requests).padStart(8)} ${String(f.errors).padStart(7)} ${fixed(f.p50Ms).padStart(8)} ${fixed(f.p99Ms).padStart(8)} ${fixed(f.throughputPerSecond).padStart(7)}   ${fixed(ratio, 2)}`,
    );
  }
  say(
    `  target: 1,000 (scoped) rules p99 <= ${TARGET_P99_RATIO}x no rules: ${results.target.pass ? 'PASS' : 'MISS'} (${fixed(ratioScoped, 2)}x)`,
  );
  say(
    `POST /v1/orch/route at concurrency ${CONCURRENCY}: p50 ${fixed(route.p50Ms)} ms, p99 ${fixed(route.p99Ms)} ms, ${fixed(route.throughputPerSecond)} req/s, ${route.errors} errors`,
  );
  say(
    `${cpus().length} CPUs, Node ${process.version}, ${stack.database.kind === 'postgres' ? 'local Postgres server' : 'embedded Postgres'}.`,
  );
  writeResults(results, RESULTS_FILE);
}

runSuite(main);
