/** What a drill is and what it returns; the counts every drill ends with. */
import { answerTwice, checkAcknowledged, countsLine } from './checks';
import { statusLine, type Tally } from './load';
import type { DrillStack } from './stack';

export interface DrillOutcome {
  counted: string[];
  problems: string[];
}

export interface Drill {
  name: string;
  title: string;
  run(stack: DrillStack): Promise<DrillOutcome>;
}

/** The counts every drill ends with. */
export async function settle(stack: DrillStack, tally: Tally, outcome: DrillOutcome): Promise<DrillOutcome> {
  outcome.counted.unshift(
    `load: ${tally.sent.length} creates (${tally.sent.filter((sent) => sent.kind === 'routing').length} routings); answers ${statusLine(tally)}; slowest ${tally.slowestMs} ms`,
  );
  outcome.problems.push(...tally.violations);
  const counts = await checkAcknowledged(stack, tally);
  await answerTwice(stack, stack, tally, counts);
  outcome.counted.push(countsLine(counts));
  outcome.problems.push(...counts.problems);
  if (counts.acknowledged !== tally.sent.length)
    outcome.problems.push(`${tally.sent.length - counts.acknowledged} requests were never acknowledged`);
  return outcome;
}
