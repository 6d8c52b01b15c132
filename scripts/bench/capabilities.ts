/**
 * `npm run bench -- capabilities`: the one matcher at size. 10,000 definitions (every tenth implying the next),
 * 1,000 people (reviewers, whose capabilities the trigger writes as grants) and 1,000 agents holding 50
 * grants each: 100,000 grants. Measured in one run on one database:
 *   match       services/capabilities/match.ts matchRequirements (one prepared statement for the requirements'
 *               satisfiers from the closure of implications and the candidates, then the domain matcher) for
 *               1–3 random required capabilities: p50/p99, target p99 < 10 ms
 *   routing     a routing's reviewer load and assignment (db/reviewers.ts + domain/routing/reviewer-assignment.ts)
 *               from grants, implications followed, against the old path in the same run: the same reviewers
 *               read from their capabilities column (the statement routing used before grants, direct only)
 *   context     a routing's whole read (db/routing-context.ts findRoutingContext) as a named prepared statement
 *               against the same text sent raw (parsed and planned at each call), sample by sample alternately
 * The machine's load average is reported beside the figures: compare ratios within one run only.
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { findAvailableReviewersWithCapabilities } from '../../db/reviewers';
import { findRoutingContext, ROUTING_CONTEXT, routingContextBindings } from '../../db/routing-context';
import { migrateToLatest } from '../../db/migrate';
import { assignReviewer, type LoadedReviewer } from '../../domain/routing/reviewer-assignment';
import { matchRequirements } from '../../services/capabilities/match';
import { createBenchDatabase } from './database';
import { percentile } from './load';
import { writeResults } from './report';
import { say } from './stack';

const DEFINITIONS = 10_000;
const PEOPLE = 1_000;
const AGENTS = 1_000;
const PER_SUBJECT = 50;
const SAMPLES = 1_000;
const WARMUP = 100;
const RESULTS_FILE = path.resolve(__dirname, '..', '..', 'bench-results', 'capabilities.json');
const org = DEFAULT_ORGANIZATION_ID;

/** Capability i's name; random subjects hold random ones, so a few hold any given capability (5 on average). */
const nameOf = (i: number) => `cap-${String(i).padStart(5, '0')}`;
const randomName = () => nameOf(1 + Math.floor(Math.random() * DEFINITIONS));

async function seed(db: Awaited<ReturnType<typeof createBenchDatabase>>['db']): Promise<void> {
  await db.raw(
    `insert into capability_definitions (organization_id, capability_name, capability_id, name, description, implies, created_by, created_at, updated_at)
     select :org, n, 'capability://default/' || n, n, 'bench', case when i % 10 = 0 and i < :count then jsonb_build_array(lpad((i + 1)::text, 5, '0')) else '[]' end,
            'bench', now(), now()
       from generate_series(1, :count) i, lateral (select 'cap-' || lpad(i::text, 5, '0') as n) named`,
    { org, count: DEFINITIONS },
  );
  await db.raw(
    `update capability_definitions set implies = jsonb_build_array('cap-' || (implies->>0)) where implies <> '[]'`,
  );
  // People: reviewers whose capabilities the trigger writes as grants (the one source).
  await db.raw(
    `insert into reviewers (organization_id, did, display_name, capabilities, chain_level, available, capacity)
     select :org, 'did:web:bench.people.' || p, 'Person ' || p,
            (select jsonb_object_agg('cap-' || lpad((1 + floor(random() * :count))::int::text, 5, '0'), round((0.5 + random() / 2)::numeric, 2))
               from generate_series(1, :per) k where p > 0),
            1 + p % 3, p % 20 <> 0, 20
       from generate_series(1, :people) p`,
    { org, count: DEFINITIONS, per: PER_SUBJECT, people: PEOPLE },
  );
  await db.raw(
    `insert into capability_grants (grant_id, organization_id, capability_name, capability_id, subject_type, subject_did, weight, issuer_did, source, created_by, created_at, expires_at)
     select 'cgr_bench_' || a || '_' || k, :org, n, 'capability://default/' || n, 'agent', 'did:web:bench.agents.' || a,
            round((0.5 + random() / 2)::numeric, 2), 'did:web:bench:issuer', 'api', 'bench', now(),
            case when k % 10 = 0 then now() - interval '1 day' end
       from generate_series(1, :agents) a, generate_series(1, :per) k,
            lateral (select 'cap-' || lpad((1 + floor(random() * :count))::int::text, 5, '0') as n where a > 0 and k > 0) named`,
    { org, count: DEFINITIONS, per: PER_SUBJECT, agents: AGENTS },
  );
  // Vacuumed as autovacuum would leave 100,000 inserted rows: visibility map set, GIN pending lists merged.
  await db.raw('vacuum analyze');
}

async function timed(
  samples: number,
  once: () => Promise<unknown>,
): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < WARMUP; i += 1) await once();
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
  };
}

type Timing = { p50: number; p99: number; mean: number };

const summary = (times: number[]): Timing => {
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
  };
};

/** Two ways of doing the same, sample by sample in turn, so the machine's noise falls on both alike. */
async function alternating(samples: number, first: () => Promise<unknown>, second: () => Promise<unknown>) {
  for (let i = 0; i < WARMUP; i += 1) {
    await first();
    await second();
  }
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < samples; i += 1)
    for (const [index, once] of [first, second].entries()) {
      const started = performance.now();
      await once();
      times[index]!.push(performance.now() - started);
    }
  return { first: summary(times[0]), second: summary(times[1]) };
}

const randomNeeds = () =>
  Array.from({ length: 1 + Math.floor(Math.random() * 3) }, () => ({ capability_id: randomName(), min_weight: 0.5 }));

/** The statement routing read reviewers with before grants: their capabilities column. */
const OLD_REVIEWERS = `select did, display_name, capabilities, chain_level, available, capacity,
  (select count(*) from reviewer_assignments a where a.organization_id = reviewers.organization_id and a.reviewer_did = reviewers.did and a.released_at is null)::int as open_assignments
   from reviewers where available and organization_id = :org and (cardinality(:capabilities::text[]) = 0 or capabilities \\?& :capabilities::text[])
  order by chain_level, did`;

async function main(): Promise<void> {
  const database = await createBenchDatabase();
  try {
    await migrateToLatest(database.db);
    const seeding = performance.now();
    await seed(database.db);
    const counts = await database.db.raw<{ rows: Array<{ grants: number; definitions: number }> }>(
      `select (select count(*) from capability_grants)::int as grants, (select count(*) from capability_definitions)::int as definitions`,
    );
    say(`Seeded ${JSON.stringify(counts.rows[0])} in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
    const db = database.db;
    if (process.env.BENCH_SEED_ONLY) {
      say(`Seeded and kept (BENCH_SEED_ONLY): ${database.url}`);
      return;
    }
    const match = await timed(SAMPLES, () =>
      matchRequirements(
        db,
        org,
        randomNeeds().map((need) => ({ capability: need.capability_id, min_weight: need.min_weight })),
        { limit: 10 },
      ),
    );
    const single = await timed(SAMPLES, () =>
      matchRequirements(db, org, [{ capability: randomName(), min_weight: 0 }], { limit: 10 }),
    );
    const routingNew = await timed(SAMPLES, async () => {
      const needs = [{ capability_id: randomName(), min_weight: 0.5 }];
      return assignReviewer(await findAvailableReviewersWithCapabilities(db, org, [needs[0]!.capability_id]), needs);
    });
    const routingOld = await timed(SAMPLES, async () => {
      const needs = [{ capability_id: randomName(), min_weight: 0.5 }];
      const { rows } = await db.raw<{ rows: LoadedReviewer[] }>(OLD_REVIEWERS, {
        org,
        capabilities: [needs[0]!.capability_id],
      });
      return assignReviewer(rows, needs);
    });
    const task = () => ({ agentId: 'urn:bench:agent', taskType: 'medical_diagnosis', capabilityIds: [randomName()] });
    const context = await alternating(
      SAMPLES,
      () => findRoutingContext(db, org, task()),
      () => db.raw(ROUTING_CONTEXT, routingContextBindings(org, task())),
    );
    const loadAverage = os.loadavg().map((load) => Math.round(load * 100) / 100);
    const results = {
      load_average: loadAverage,
      sizes: { definitions: DEFINITIONS, people: PEOPLE, agents: AGENTS, grants: counts.rows[0]!.grants },
      database: database.kind,
      match_ms: match,
      match_one_capability_ms: single,
      routing_assignment_ms: { grants: routingNew, capabilities_column: routingOld },
      routing_context_ms: { prepared: context.first, raw: context.second },
      targets: { match_p99_under_10ms: match.p99 < 10, routing_p50_no_slower: routingNew.p50 <= routingOld.p50 * 1.1 },
    };
    say(`load average ${loadAverage.join(' ')}`);
    say(
      `match (1–3 capabilities, implications followed): p50 ${match.p50.toFixed(2)} ms, p99 ${match.p99.toFixed(2)} ms`,
    );
    say(`match (1 capability): p50 ${single.p50.toFixed(2)} ms, p99 ${single.p99.toFixed(2)} ms`);
    say(
      `routing reviewer load + assignment: grants p50 ${routingNew.p50.toFixed(2)} ms (p99 ${routingNew.p99.toFixed(2)}), ` +
        `old capabilities column p50 ${routingOld.p50.toFixed(2)} ms (p99 ${routingOld.p99.toFixed(2)})`,
    );
    say(
      `routing context read: prepared p50 ${context.first.p50.toFixed(2)} ms (p99 ${context.first.p99.toFixed(2)}), ` +
        `raw p50 ${context.second.p50.toFixed(2)} ms (p99 ${context.second.p99.toFixed(2)}), ` +
        `ratio ${(context.first.p50 / context.second.p50).toFixed(2)}`,
    );
    writeResults(results, RESULTS_FILE);
  } finally {
    if (process.env.BENCH_SEED_ONLY) await database.db.destroy();
    else await database.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
