import type { Knex } from 'knex';

/** An installation's provider tokens as connector_tokens stores them: sealed, bound to the installation id. */
export interface SealedTokens {
  installation_id: string;
  access_token_sealed: string;
  refresh_token_sealed: string | null;
  token_type: string;
  scope: string | null;
  expires_at: Date | null;
  /** Counts the tokens the installation has held: each refresh stores the next. */
  generation: number;
  refreshed_at: Date;
}

/** Stores an installation's first tokens, or the tokens of a re-install in place of the old ones. */
export async function putTokens(db: Knex, tokens: Omit<SealedTokens, 'generation' | 'refreshed_at'>): Promise<void> {
  await db('connector_tokens')
    .insert({ ...tokens, generation: 1, refreshed_at: db.fn.now() })
    .onConflict('installation_id')
    .merge({ ...tokens, generation: db.raw('connector_tokens.generation + 1'), refreshed_at: db.fn.now() });
}

export async function findTokens(db: Knex, installationId: string): Promise<SealedTokens | undefined> {
  return db<SealedTokens>('connector_tokens').where({ installation_id: installationId }).first();
}

/**
 * The tokens, locked until the transaction ends: the one refresh of an installation at a time, across every
 * process. A second refresher waits here and then reads what the first stored.
 */
export async function lockTokens(trx: Knex.Transaction, installationId: string): Promise<SealedTokens | undefined> {
  return trx<SealedTokens>('connector_tokens').where({ installation_id: installationId }).forUpdate().first();
}

export async function storeRefreshedTokens(
  trx: Knex.Transaction,
  tokens: Omit<SealedTokens, 'generation' | 'refreshed_at'>,
): Promise<void> {
  await trx('connector_tokens')
    .where({ installation_id: tokens.installation_id })
    .update({ ...tokens, generation: trx.raw('generation + 1'), refreshed_at: trx.fn.now() });
}

export async function deleteTokens(db: Knex, installationId: string): Promise<void> {
  await db('connector_tokens').where({ installation_id: installationId }).delete();
}
