/**
 * `npm run drill [-- <drill> …]`: crash, restart and outage drills against a stack of their own (see
 * stack.ts), one after another on the same stack, each restoring what it broke. Prints what each counted;
 * exits 1 if any found a loss, a duplicate, an inconsistency or an answer outside the rules. With
 * HANDOFF_TEST_SUMMARY set (CI), adds one passed or failed test per drill to the counts already there.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { DRILLS as FAULT_DRILLS } from './drills';
import type { Drill } from './outcome';
import { scaleOut } from './scale-out';
import { startDrillStack, type DrillStack } from './stack';

const say = (line: string) => process.stdout.write(`${line}\n`);

/** The fault drills on one API and one worker, then the scale-out drill, which adds a second of each. */
const DRILLS: Drill[] = [...FAULT_DRILLS, scaleOut];

function selected(argv: string[]): Drill[] {
  if (argv.length === 0) return DRILLS;
  const unknown = argv.filter((name) => !DRILLS.some((drill) => drill.name === name));
  if (unknown.length > 0)
    throw new Error(`No drill ${unknown.join(', ')}; the drills are ${DRILLS.map((drill) => drill.name).join(', ')}`);
  return DRILLS.filter((drill) => argv.includes(drill.name));
}

function addToSummary(passed: number, failed: number): void {
  const file = process.env.HANDOFF_TEST_SUMMARY;
  if (!file) return;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const before = text
    ? (JSON.parse(text) as { passed: number; failed: number; skipped?: number })
    : { passed: 0, failed: 0, skipped: 0 };
  writeFileSync(file, JSON.stringify({ ...before, passed: before.passed + passed, failed: before.failed + failed }));
}

function showLogTail(stack: DrillStack): void {
  const lines = stack.logTail(20);
  if (lines.length === 0) return;
  say('  the services’ last log lines:');
  for (const line of lines) say(`    ${line.slice(0, 400)}`);
}

async function main(): Promise<number> {
  const drills = selected(process.argv.slice(2));
  const started = Date.now();
  let stack: DrillStack | undefined;
  let passed = 0;
  let failed = 0;
  try {
    stack = await startDrillStack(say);
    say(`Stack up in ${((Date.now() - started) / 1000).toFixed(0)} s.\n`);
    for (const [index, drill] of drills.entries()) {
      const drillStarted = Date.now();
      say(`drill ${index + 1}/${drills.length} ${drill.name}: ${drill.title}`);
      try {
        const outcome = await drill.run(stack);
        for (const line of outcome.counted) say(`  ${line}`);
        for (const problem of outcome.problems.slice(0, 20)) say(`  FAIL ${problem}`);
        if (outcome.problems.length > 20) say(`  … and ${outcome.problems.length - 20} more problems`);
        const ok = outcome.problems.length === 0;
        if (ok) passed += 1;
        else failed += 1;
        if (!ok) showLogTail(stack);
        say(`  ${ok ? 'passed' : 'FAILED'} in ${((Date.now() - drillStarted) / 1000).toFixed(0)} s\n`);
      } catch (error) {
        failed += 1;
        say(`  FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        showLogTail(stack);
        say('');
      }
    }
  } catch (error) {
    say(`The drill stack did not start: ${error instanceof Error ? error.message : String(error)}`);
    failed = drills.length - passed;
  } finally {
    await stack?.stop().catch((error: unknown) => say(`stopping the stack: ${(error as Error).message}`));
  }
  addToSummary(passed, failed);
  say(`drills: ${passed} passed, ${failed} failed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(error instanceof Error ? error.message : String(error));
    process.exit(2);
  },
);
