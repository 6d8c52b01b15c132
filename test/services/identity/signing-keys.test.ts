import { randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { ledgerOrigin, tokenIssuer } from '../../../app/config';
import { createKeyRing, ensureSigningKey, rotateSigningKey } from '../../../services/identity/issuance/key-ring';
import { registerTokenSubject } from '../../../services/identity/issuance/subjects';
import { issueAccessToken } from '../../../services/identity/issuance/access-tokens';
import { ensureLedgerKey, loadLedgerKey } from '../../../services/ledger/keys';
import { createSecretBox, secretKeysFrom, SecretsUnavailableError, type SecretKeys } from '../../../lib/secret-box';
import { createNoteSigner, noteKeyId, publicKeyOfSeed } from '../../../lib/signed-note';
import { migrateToLatest, migrationSource } from '../../../db/migrate';
import { DEFAULT_ORGANIZATION_ID } from '../../../domain/common/organizations';
import { startExtraApp } from '../../support/app';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { call } from '../../support/http';
import { startStack, type Stack } from '../../support/stack';

/*
 * Private keys at rest: a database backup must not be enough to mint access tokens or sign checkpoints.
 * With SECRETS_ENCRYPTION_KEY configured, the start seals every key still in the clear, new keys are sealed
 * from the first, and tokens signed before keep verifying, across restarts with the same key.
 */
jest.setTimeout(120_000);

let stack: Stack;
let secretKeys: SecretKeys;
const READ = '/v1/orch/reviewers';

beforeAll(async () => {
  // The stack starts with a key in the clear, as a deployment from before sealing has one.
  stack = await startStack();
  secretKeys = secretKeysFrom(stack.config.SECRETS_ENCRYPTION_KEY, []);
});
afterAll(() => stack?.stop());

const signingRows = () =>
  stack.database.db('signing_keys').select('*') as Promise<
    Array<{ kid: string; private_jwk: JWK | null; sealed_private_key: string | null }>
  >;

async function tokenFrom(keyRing: ReturnType<typeof createKeyRing>, subject: string): Promise<string> {
  await registerTokenSubject(stack.database.db, {
    subject,
    organizationId: DEFAULT_ORGANIZATION_ID,
    scopes: ['orch:read'],
  });
  const settings = { issuer: tokenIssuer(stack.config), audience: stack.config.AUTH_AUDIENCE };
  return issueAccessToken(keyRing, settings, {
    subject,
    scopes: ['orch:read'],
    organizationId: DEFAULT_ORGANIZATION_ID,
    ttlSeconds: 600,
  });
}

describe('the access-token signing keys', () => {
  it('are sealed at start, holding no private key material, and tokens signed before still verify', async () => {
    const [before] = await signingRows();
    expect(before!.private_jwk).toMatchObject({ d: expect.any(String) });
    const privateD = before!.private_jwk!.d!;
    const signedBefore = await stack.token(['orch:read'], 'before-sealing');

    await ensureSigningKey(stack.database.db, { secretKeys });

    const rows = await signingRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kid: before!.kid,
      private_jwk: null,
      sealed_private_key: expect.stringMatching(/^v1\./),
    });
    expect(JSON.stringify(rows)).not.toContain(privateD);
    expect(JSON.stringify(rows)).not.toMatch(/"d"/);
    expect((await call(stack.baseUrl, 'GET', READ, { token: signedBefore })).status).toBe(200);
  });

  it('sign with the configured secrets key only', async () => {
    const sealedRing = createKeyRing(stack.database.db, { secretKeys });
    const signed = await tokenFrom(sealedRing, 'after-sealing');
    expect((await call(stack.baseUrl, 'GET', READ, { token: signed })).status).toBe(200);
    await expect(createKeyRing(stack.database.db).signingKey()).rejects.toThrow(
      /sealed: configure SECRETS_ENCRYPTION_KEY/,
    );
    const otherKey = secretKeysFrom(randomBytes(32).toString('base64'), []);
    await expect(createKeyRing(stack.database.db, { secretKeys: otherKey }).signingKey()).rejects.toThrow(
      SecretsUnavailableError,
    );
  });

  it('keep verifying old tokens, and signing, after a restart with the same key', async () => {
    const signed = await tokenFrom(createKeyRing(stack.database.db, { secretKeys }), 'across-restarts');
    const restarted = await startExtraApp(stack);
    try {
      await ensureSigningKey(stack.database.db, { secretKeys });
      expect((await call(restarted.baseUrl, 'GET', READ, { token: signed })).status).toBe(200);
      const issuedAfter = await tokenFrom(createKeyRing(stack.database.db, { secretKeys }), 'after-restart');
      expect((await call(restarted.baseUrl, 'GET', READ, { token: issuedAfter })).status).toBe(200);
    } finally {
      await restarted.close();
    }
  });

  it('are sealed again with a new secrets key at start, so that the old one can be retired', async () => {
    const newKey = randomBytes(32).toString('base64');
    await ensureSigningKey(stack.database.db, {
      secretKeys: secretKeysFrom(newKey, [stack.config.SECRETS_ENCRYPTION_KEY!]),
    });
    const onlyNew = secretKeysFrom(newKey, []);
    const rows = await signingRows();
    expect(
      rows.every(
        (row) => row.private_jwk === null && createSecretBox(onlyNew).sealedWithCurrent(row.sealed_private_key!),
      ),
    ).toBe(true);
    const signed = await tokenFrom(createKeyRing(stack.database.db, { secretKeys: onlyNew }), 'after-key-rotation');
    expect((await call(stack.baseUrl, 'GET', READ, { token: signed })).status).toBe(200);
    // Back to the stack's own key for the tests below, the same way.
    await ensureSigningKey(stack.database.db, {
      secretKeys: secretKeysFrom(stack.config.SECRETS_ENCRYPTION_KEY, [newKey]),
    });
  });

  it('are sealed from the first when rotated', async () => {
    const kid = await rotateSigningKey(stack.database.db, { maxTokenTtlSeconds: 600, secretKeys });
    const row = (await signingRows()).find((candidate) => candidate.kid === kid);
    expect(row).toMatchObject({ private_jwk: null, sealed_private_key: expect.stringMatching(/^v1\./) });
    expect((await createKeyRing(stack.database.db, { secretKeys }).signingKey()).kid).toBe(kid);
  });
});

describe('the ledger key', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.destroy());

  it('is sealed at start, keeps signing what it signed before, and is nowhere in the clear', async () => {
    const origin = ledgerOrigin(stack.config);
    const warnings: string[] = [];
    const clear = await ensureLedgerKey(database.db, origin, (message) => warnings.push(message));
    expect(warnings).toEqual(['SECRETS_ENCRYPTION_KEY is not configured: the ledger key is stored unsealed']);
    const [legacy] = await database.db('ledger_key_secrets').select('*');
    const seedHex = (legacy.private_key as Buffer).toString('hex');
    const before = clear.signer.sign('checkpoint body');

    const sealed = await ensureLedgerKey(database.db, origin, () => undefined, secretKeys);
    expect(sealed.keyId).toBe(clear.keyId);
    const [row] = await database.db('ledger_key_secrets').select('*');
    expect(row).toMatchObject({
      key_id: clear.keyId,
      private_key: null,
      sealed_private_key: expect.stringMatching(/^v1\./),
    });
    const rows = [
      ...(await database.db('ledger_keys').select('*')),
      ...(await database.db('ledger_key_secrets').select('*')),
    ] as Array<Record<string, unknown>>;
    // Every column as text, bytea as hex: the seed must be in none of them, in any encoding.
    const everything = rows
      .flatMap((row) =>
        Object.values(row).map((value) => (Buffer.isBuffer(value) ? value.toString('hex') : String(value))),
      )
      .join(' ');
    expect(everything).not.toContain(seedHex);
    expect(everything).not.toContain(Buffer.from(seedHex, 'hex').toString('base64url'));

    const reopened = await loadLedgerKey(database.db, secretKeys);
    expect(reopened!.signer.sign('checkpoint body')).toEqual(before);
    await expect(loadLedgerKey(database.db)).rejects.toThrow(/sealed: configure SECRETS_ENCRYPTION_KEY/);

    // A new secrets key: the start seals the seed again with it, and the old key is no longer needed.
    const newKey = randomBytes(32).toString('base64');
    await ensureLedgerKey(
      database.db,
      origin,
      () => undefined,
      secretKeysFrom(newKey, [stack.config.SECRETS_ENCRYPTION_KEY!]),
    );
    expect((await loadLedgerKey(database.db, secretKeysFrom(newKey, [])))!.signer.sign('checkpoint body')).toEqual(
      before,
    );
  });

  it('made before the migration moved its private half, signs as before once sealed', async () => {
    const old = await createTestDatabase({ migrate: false });
    try {
      while (
        ((await old.db.migrate.list({ migrationSource })) as [unknown[], Array<{ name: string }>])[1][0]!.name <
        '20261128000300'
      )
        await old.db.migrate.up({ migrationSource });
      const seed = randomBytes(32);
      const publicKey = publicKeyOfSeed(seed);
      const keyId = noteKeyId('before.test/log', publicKey).toString(16).padStart(8, '0');
      await old
        .db('ledger_keys')
        .insert({ key_id: keyId, origin: 'before.test/log', public_key: publicKey, private_key: seed });
      await migrateToLatest(old.db);
      const sealed = await ensureLedgerKey(old.db, 'before.test/log', () => undefined, secretKeys);
      expect(sealed.keyId).toBe(keyId);
      expect(await old.db('ledger_key_secrets').select('private_key')).toEqual([{ private_key: null }]);
      expect(sealed.signer.sign('checkpoint body')).toEqual(
        createNoteSigner('before.test/log', seed).sign('checkpoint body'),
      );
    } finally {
      await old.destroy();
    }
  });

  it('is sealed from the first in a new deployment with a secrets key', async () => {
    const fresh = await createTestDatabase();
    try {
      await ensureLedgerKey(fresh.db, 'fresh.test/log', () => undefined, secretKeys);
      const [row] = await fresh.db('ledger_key_secrets').select('*');
      expect(row).toMatchObject({ private_key: null, sealed_private_key: expect.stringMatching(/^v1\./) });
    } finally {
      await fresh.destroy();
    }
  });
});
