/**
 * The scale-out drill: two API and two worker processes on one Temporal and one PostgreSQL, every API instance
 * with the same PUBLIC_BASE_URL (tokens are refused by an instance whose issuer differs), requests round-robin
 * over the APIs, and one worker killed with -9 midway. Every acknowledged request is then counted as in the
 * other drills: exactly one row, its workflow in step, every pending approval answered twice at once through
 * the second API (whose token checks must accept what the first one issued).
 */
import { answerTwice, checkAcknowledged, countsLine } from './checks';
import type { Drill } from './outcome';
import { drive, statusLine } from './load';
import { sleep } from './stack';

const LOAD = { count: 80, concurrency: 8, routingEvery: 4 };

export const scaleOut: Drill = {
  name: 'scale-out',
  title: 'two APIs and two workers, round-robin; kill -9 one worker midway',
  async run(stack) {
    const secondApi = await stack.startExtra('api');
    const secondWorker = await stack.startExtra('worker');
    const baseUrls = [stack.baseUrl, secondApi.baseUrl!];
    try {
      const tally = await drive(
        { baseUrl: stack.baseUrl, baseUrls, token: stack.token },
        {
          drill: this.name,
          ...LOAD,
          during: async () => {
            await sleep(500);
            secondWorker.kill();
          },
        },
      );
      const counts = await checkAcknowledged(stack, tally);
      await answerTwice(stack, { baseUrl: secondApi.baseUrl!, approverToken: stack.approverToken }, tally, counts);
      const problems = [...tally.violations, ...counts.problems];
      if (counts.acknowledged !== tally.sent.length)
        problems.push(`${tally.sent.length - counts.acknowledged} requests were never acknowledged`);
      return {
        counted: [
          `load: ${tally.sent.length} creates (${tally.sent.filter((sent) => sent.kind === 'routing').length} routings) round-robin over ${baseUrls.length} APIs; answers ${statusLine(tally)}; slowest ${tally.slowestMs} ms`,
          countsLine(counts),
        ],
        problems,
      };
    } finally {
      await secondApi.stop();
      await secondWorker.stop();
    }
  },
};
