import type { Knex } from 'knex';

/**
 * The closure read from the holder's side: what a held capability implies (a Passport's capabilities, an admin's
 * choice of reviewer credited with what their grants imply). The primary key serves the other side (what
 * satisfies a required capability); without this, a holder's lookup scanned the organization's whole closure.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'create index capability_implications_by_holder on capability_implications (organization_id, capability_name, implied_name)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index capability_implications_by_holder');
}
