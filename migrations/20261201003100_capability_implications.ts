import type { Knex } from 'knex';

/**
 * Implications materialized: each organization's transitive closure of its definitions' `implies` (a
 * cardiologist is a physician, a physician a clinician), one row per (held, implied) pair with the shortest
 * chain between them. Matching and routing expand a requirement to the capabilities satisfying it with one
 * lookup on the key instead of walking `implies` per statement (a recursive probe of the GIN index per level)
 * or per reviewer. Kept by statement triggers on capability_definitions, so define, import, promote and any
 * direct write (the reviewer trigger's definitions, the bench's seed) keep it whole; an organization's
 * closure is rebuilt under a lock of its own, only by statements that change an `implies`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table capability_implications (
      organization_id text not null references organizations (organization_id),
      implied_name text not null,
      capability_name text not null,
      via text[] not null,
      primary key (organization_id, implied_name, capability_name)
    );

    create function refresh_capability_implications(org text) returns void language plpgsql as $$
    declare
      step int := 2;
      added int;
    begin
      perform pg_advisory_xact_lock(hashtext('capability_implications:' || org));
      delete from capability_implications where organization_id = org;
      loop
        -- Breadth first: the pairs a chain of 'step' names reaches that no shorter chain did.
        insert into capability_implications (organization_id, implied_name, capability_name, via)
        select distinct on (held, implied) org, implied, held, via
          from (
            select d.capability_name as held, i.name as implied, array[d.capability_name, i.name] as via
              from capability_definitions d, jsonb_array_elements_text(d.implies) i(name)
             where step = 2 and d.organization_id = org
            union all
            select c.capability_name, i.name, c.via || i.name
              from capability_implications c
              join capability_definitions d on d.organization_id = org and d.capability_name = c.implied_name
             cross join jsonb_array_elements_text(d.implies) i(name)
             where step > 2 and c.organization_id = org and cardinality(c.via) = step - 1
          ) reached
         where held <> implied
         order by held, implied, via
        on conflict do nothing;
        get diagnostics added = row_count;
        exit when added = 0;
        step := step + 1;
      end loop;
    end $$;

    create function capability_implications_changed() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        perform refresh_capability_implications(o.organization_id)
           from (select distinct organization_id from added where implies <> '[]') o;
      elsif tg_op = 'UPDATE' then
        perform refresh_capability_implications(o.organization_id)
           from (select distinct a.organization_id from added a
                   full join removed r using (organization_id, capability_name)
                  where a.implies is distinct from r.implies) o;
      else
        perform refresh_capability_implications(o.organization_id)
           from (select distinct organization_id from removed where implies <> '[]') o;
      end if;
      return null;
    end $$;

    create trigger capability_implications_insert after insert on capability_definitions
      referencing new table as added for each statement execute function capability_implications_changed();
    create trigger capability_implications_update after update on capability_definitions
      referencing new table as added old table as removed
      for each statement execute function capability_implications_changed();
    create trigger capability_implications_delete after delete on capability_definitions
      referencing old table as removed for each statement execute function capability_implications_changed();

    select refresh_capability_implications(o.organization_id)
      from (select distinct organization_id from capability_definitions where implies <> '[]') o;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger capability_implications_delete on capability_definitions;
    drop trigger capability_implications_update on capability_definitions;
    drop trigger capability_implications_insert on capability_definitions;
    drop function capability_implications_changed();
    drop function refresh_capability_implications(text);
    drop table capability_implications;
  `);
}
