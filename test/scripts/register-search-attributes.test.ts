import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { ALL_SEARCH_ATTRIBUTES } from '../../contracts/search-attributes';
import { eventually } from '../support/eventually';
import { devServerAddress } from '../support/stack';

const { IndexedValueType } = temporal.api.enums.v1;
const EXPECTED_TYPES: Record<string, number> = {
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  DOUBLE: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
};
const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** The script as an operator runs it: its own process, configured by the environment alone. */
async function registerSearchAttributes(namespace: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    TEMPORAL_ADDRESS: devServerAddress(),
    TEMPORAL_NAMESPACE: namespace,
  };
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/register-search-attributes.ts'],
      { cwd: ROOT, env, timeout: 60_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** The lines the script printed for each attribute, by name. */
function reported(stdout: string): Map<string, string> {
  const rows = stdout.split('\n').flatMap((line) => {
    const match = /^\s+(\S+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
    return match ? [[match[1]!, match[3]!] as const] : [];
  });
  return new Map(rows);
}

let connection: Connection;
const namespace = `handoff-sa-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  connection = await Connection.connect({ address: devServerAddress() });
  // A namespace of the test's own starts with none of the attributes the dev server registers for `default`.
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  await eventually(
    () =>
      connection.operatorService.listSearchAttributes({ namespace }).then(
        () => true,
        () => false,
      ),
    (listed) => listed,
  );
});

afterAll(async () => {
  await connection.operatorService.deleteNamespace({ namespace }).catch(() => undefined);
  await connection.close();
});

async function registered(): Promise<Record<string, number>> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  return Object.fromEntries(Object.entries(customAttributes));
}

describe('npm run temporal:search-attributes', () => {
  it('registers every search attribute once, and a second run finds them all registered', async () => {
    const names = ALL_SEARCH_ATTRIBUTES.map((key) => key.name);
    const before = await registered();
    for (const name of names) expect(before).not.toHaveProperty(name);

    const first = await registerSearchAttributes(namespace);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const firstReport = reported(first.stdout);
    for (const name of names) expect(firstReport.get(name)).toBe('registered');

    const second = await registerSearchAttributes(namespace);
    expect(second).toMatchObject({ code: 0, stderr: '' });
    const secondReport = reported(second.stdout);
    for (const name of names) expect(secondReport.get(name)).toBe('already registered');

    const listed = await registered();
    for (const key of ALL_SEARCH_ATTRIBUTES)
      expect([key.name, listed[key.name]]).toEqual([key.name, EXPECTED_TYPES[key.type]]);
  });

  it('refuses, and says so, when an attribute is registered with another type', async () => {
    const [keyword] = ALL_SEARCH_ATTRIBUTES.filter((key) => key.type === 'KEYWORD');
    await connection.operatorService.removeSearchAttributes({ namespace, searchAttributes: [keyword!.name] });
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { [keyword!.name]: IndexedValueType.INDEXED_VALUE_TYPE_TEXT },
    });

    const outcome = await registerSearchAttributes(namespace);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain(`${keyword!.name} is TEXT, not Keyword`);
    expect((await registered())[keyword!.name]).toBe(IndexedValueType.INDEXED_VALUE_TYPE_TEXT);
  });
});
