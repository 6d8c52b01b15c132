import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../support/database';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
jest.setTimeout(120_000);

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());

/** `npm run token` as an operator runs it: its own process, configured by the environment alone. */
async function token(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: database.url };
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/token.ts', ...args], {
      cwd: ROOT,
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const tokenRows = () => database.db('api_tokens').select('token_id', 'scopes');

describe('npm run token', () => {
  it('refuses to mint without --scopes, saying so, and stores nothing', async () => {
    const reply = await token([]);
    expect(reply.code).toBe(2);
    expect(reply.stderr).toMatch(/--scopes is required/);
    expect(reply.stdout).not.toMatch(/hnd_pat_/);
    expect(await tokenRows()).toEqual([]);
  });

  it('explains itself with --help', async () => {
    const reply = await token(['--help']);
    expect(reply.code).toBe(0);
    expect(reply.stdout).toMatch(/Usage: npm run token -- --scopes/);
    expect(reply.stdout).toMatch(/cloud:admin:global/);
    expect(await tokenRows()).toEqual([]);
  });

  it('refuses an unknown option or scope', async () => {
    expect((await token(['--scope', 'orch:read'])).code).toBe(2);
    expect((await token(['--scopes', 'orch:everything'])).stderr).toMatch(/Scopes must be among/);
    expect(await tokenRows()).toEqual([]);
  });

  it('mints a token with exactly the scopes named', async () => {
    const reply = await token(['--scopes', 'orch:read,audit:read', '--name', 'ci']);
    expect(reply.code).toBe(0);
    expect(reply.stdout).toMatch(/hnd_pat_[A-Za-z0-9_-]{43}/);
    expect(await tokenRows()).toEqual([
      { token_id: expect.stringMatching(/^pat_/), scopes: ['orch:read', 'audit:read'] },
    ]);
  });
});
