/**
 * `npm run ledger:export [-- --out <file>]`: writes the sealed log as JSON lines (the format of
 * GET /v1/ledger/export) for `npm run verify`. Reads DATABASE_URL, or the embedded Postgres a running
 * `npm start` serves.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../app/config';
import { openDatabase } from '../app/database';
import { exportLedger } from '../services/ledger/export';

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { out: { type: 'string' } } });
  const database = await openDatabase(loadConfig(process.env), { serveEmbedded: false });
  try {
    const lines = Readable.from(
      (async function* () {
        for await (const line of exportLedger(database.db)) yield `${JSON.stringify(line)}\n`;
      })(),
    );
    await pipeline(lines, values.out ? createWriteStream(values.out) : process.stdout);
    if (values.out) process.stderr.write(`wrote ${values.out}\n`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
