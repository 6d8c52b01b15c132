import type { Knex } from 'knex';

/** The channel a routing's or an approval's change of status is told on; its payload is `routing:<id>` or `approval:<id>`. */
const DECISIONS_CHANNEL = 'handoff_decisions';

/**
 * A change of a routing's or an approval's status NOTIFYs the API instances, delivered at its commit, so that a
 * request waiting for the decision (GET …?wait=) re-reads it at once. A trigger rather than a NOTIFY beside each
 * writer: the request's claims, the workflows' projections and the expiry all write the same columns.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function handoff_decision_notify() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.status is not distinct from new.status then
        return null;
      end if;
      perform pg_notify('${DECISIONS_CHANNEL}', tg_argv[0] || ':' || (to_jsonb(new) ->> tg_argv[1]));
      return null;
    end $$`);
  await knex.raw(`create trigger routings_decision_notify after insert or update of status on routings
    for each row execute function handoff_decision_notify('routing', 'routing_id')`);
  await knex.raw(`create trigger approvals_decision_notify after insert or update of status on approvals
    for each row execute function handoff_decision_notify('approval', 'approval_id')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists approvals_decision_notify on approvals');
  await knex.raw('drop trigger if exists routings_decision_notify on routings');
  await knex.raw('drop function if exists handoff_decision_notify()');
}
