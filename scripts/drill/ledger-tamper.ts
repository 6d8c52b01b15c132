/**
 * The ledger drill: a record changed behind the service's back is refused by `npm run verify`, which names it,
 * while an untouched record's proof still verifies.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { drive } from './load';
import { settle, type Drill } from './outcome';
import { sleep } from './stack';

function runScript(script: string, args: string[], env: NodeJS.ProcessEnv): { status: number; output: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { env, encoding: 'utf8' });
  return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

export const tamperLedger: Drill = {
  name: 'ledger-tamper',
  title: 'a ledger row changed behind the service’s back; npm run verify names the record',
  async run(stack) {
    const tally = await drive(stack, { drill: this.name, count: 8, concurrency: 4 });
    const outcome = await settle(stack, tally, { counted: [], problems: [] });
    const ids = tally.sent.flatMap((sent) => (sent.id ? [sent.id] : []));
    const records = await stack
      .db('ledger_entries')
      .whereIn('subject_id', ids)
      .orderBy('seq')
      .select<Array<{ transaction_id: string; body: string }>>('transaction_id', 'body');
    const [changed, untouched] = records;
    if (!changed || !untouched)
      return {
        ...outcome,
        problems: [...outcome.problems, 'the drill’s approvals left fewer than two ledger records'],
      };
    const folder = mkdtempSync(path.join(tmpdir(), 'handoff-drill-ledger-'));
    try {
      const headers = { authorization: `Bearer ${stack.token}` };
      const vkey = ((await (await fetch(`${stack.baseUrl}/v1/ledger/key`)).json()) as { verifier_key: string })
        .verifier_key;
      const proof = async (transactionId: string, file: string) => {
        for (let attempt = 1; ; attempt += 1) {
          // A kept-alive connection the server closes while the scripts run fails the next fetch: ask again on a new one.
          const response = await fetch(`${stack.baseUrl}/v1/ledger/records/${transactionId}/proof`, { headers }).catch(
            (error: unknown) => {
              if (attempt >= 3) throw error;
              return undefined;
            },
          );
          if (!response) continue;
          if (response.status === 200) {
            writeFileSync(path.join(folder, file), await response.text());
            return;
          }
          await response.arrayBuffer();
          await sleep(500);
        }
      };
      // Wait until both are sealed, then check the whole log as it stands: it verifies.
      await proof(changed.transaction_id, 'before.json');
      await proof(untouched.transaction_id, 'untouched.json');
      const env = { ...process.env, ...stack.env };
      const exportFile = path.join(folder, 'ledger.ndjson');
      const exported = () => runScript('scripts/ledger-export.ts', ['--out', exportFile], env);
      const verify = (file: string) => runScript('scripts/verify.ts', ['--key', vkey, file], env);
      exported();
      const before = verify(exportFile);
      if (before.status !== 0) outcome.problems.push(`the untouched log does not verify: ${before.output}`);

      // Behind the service's back: a superuser skips the append-only triggers and edits one record's body.
      await stack.db.transaction(async (trx) => {
        await trx.raw('set local session_replication_role = replica');
        await trx('ledger_entries')
          .where({ transaction_id: changed.transaction_id })
          .update({ body: changed.body.replace('"drill-', '"edited-drill-') });
      });
      exported();
      const after = verify(exportFile);
      await proof(changed.transaction_id, 'changed.json');
      const changedBundle = verify(path.join(folder, 'changed.json'));
      const untouchedBundle = verify(path.join(folder, 'untouched.json'));
      outcome.counted.push(
        `whole log before: exit ${before.status}; after the edit: exit ${after.status}; the edited record's proof: exit ${changedBundle.status}` +
          `${changedBundle.output.includes(changed.transaction_id) ? ', naming it' : ''}; an untouched record's proof: exit ${untouchedBundle.status}`,
      );
      if (after.status !== 1 || !/a record was changed/.test(after.output))
        outcome.problems.push(`the edited log was not refused: ${after.output}`);
      if (changedBundle.status !== 1 || !changedBundle.output.includes(`FAIL  record ${changed.transaction_id}`))
        outcome.problems.push(`verify did not name the edited record: ${changedBundle.output}`);
      if (untouchedBundle.status !== 0)
        outcome.problems.push(`an untouched record no longer verifies: ${untouchedBundle.output}`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    return outcome;
  },
};
