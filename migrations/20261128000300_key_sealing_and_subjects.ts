import type { Knex } from 'knex';

/**
 * Private keys sealed at rest, and the subjects a bare access token may name:
 *
 * - signing_keys.sealed_private_key: the access-token key's private JWK sealed with the secret box
 *   (SECRETS_ENCRYPTION_KEY); private_jwk becomes null once a row is sealed. Migrations have no key, so the
 *   processes seal existing rows when they start (services/auth/key-ring.ts ensureSigningKey).
 * - ledger_key_secrets: the ledger key's private half, moved out of the append-only ledger_keys (whose rows
 *   can never be updated, and so never sealed in place) into a table of its own, sealed at start the same way.
 * - token_subjects: the subjects that may hold an access token without a service account behind it (the
 *   dev admin's, an operator's), with their organization and the most they may claim.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table signing_keys add column sealed_private_key text;
    alter table signing_keys alter column private_jwk drop not null;
    alter table signing_keys add constraint signing_keys_private_key_kept check (private_jwk is not null or sealed_private_key is not null);

    create table ledger_key_secrets (
      key_id text primary key references ledger_keys (key_id),
      private_key bytea check (length(private_key) = 32),
      sealed_private_key text,
      check (private_key is not null or sealed_private_key is not null)
    );
    insert into ledger_key_secrets (key_id, private_key) select key_id, private_key from ledger_keys;
    alter table ledger_keys drop column private_key;

    create table token_subjects (
      subject text not null,
      organization_id text not null references organizations (organization_id),
      scopes text[] not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (subject, organization_id)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table token_subjects;
    alter table ledger_keys add column private_key bytea check (length(private_key) = 32);
    alter table ledger_keys disable trigger ledger_keys_append_only;
    update ledger_keys k set private_key = s.private_key from ledger_key_secrets s where s.key_id = k.key_id;
    alter table ledger_keys enable trigger ledger_keys_append_only;
    drop table ledger_key_secrets;
    alter table signing_keys drop constraint signing_keys_private_key_kept;
    alter table signing_keys drop column sealed_private_key;
  `);
}
