import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm start` only: the secrets encryption key kept beside the embedded data when SECRETS_ENCRYPTION_KEY
 * is unset, created on the first start, so webhook secrets sealed today still open after a restart.
 * Production sets SECRETS_ENCRYPTION_KEY from its secret store; this file is never a production key.
 */
export const DEV_SECRETS_KEY_FILE = 'secrets-encryption.key';

export function devSecretsKey(dataDir: string): { key: string; file: string; created: boolean } {
  const file = path.join(dataDir, DEV_SECRETS_KEY_FILE);
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), file, created: false };
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, file, created: true };
}
