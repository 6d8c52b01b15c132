import type { Knex } from 'knex';

/**
 * platform_agents.passport_id is the agent's DID (the API's `passportId`, registration's `passport_id`: a DID,
 * by default did:web:handoff.local:agents:<org>:<name>), and grants are keyed by DID. The grant-sync trigger
 * looked a Passport up by its `pp_…` id instead, so an agent registered through the API got no grants from its
 * registration. Now: a row holding a Passport id is rewritten to that Passport's DID; the trigger grants the
 * agent's DID (a Passport need not exist, as for a reviewer) what every registration of that DID in the
 * organization offers (versions of an agent share its DID, so one version's registration does not revoke
 * another's); every agent's grants are synced again. The matcher finds an agent by its DID (the index below).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    update platform_agents a set passport_id = p.did
      from passports p
     where p.passport_id = a.passport_id and p.organization_id = a.organization_id;

    create index platform_agents_organization_passport on platform_agents (organization_id, passport_id);

    -- Volatile, not stable: called from the row trigger, it must see the row its statement just wrote. The
    -- parameters are qualified: platform_agents has a column named org.
    create function platform_agent_held(organization text, subject text) returns jsonb language sql volatile as $$
      select coalesce(jsonb_object_agg(name, 1), '{}'::jsonb)
        from (select distinct lower(substring(uri from '([^/]+)$')) as name
                from platform_agents a, unnest(a.capabilities) uri
               where a.organization_id = platform_agent_held.organization and a.passport_id = platform_agent_held.subject) offered
       where name is not null
    $$;

    create or replace function platform_agent_grants_sync() returns trigger language plpgsql as $$
    begin
      perform sync_capability_grants(new.organization_id, 'agent', new.passport_id,
                                     platform_agent_held(new.organization_id, new.passport_id),
                                     'the agent''s registration');
      return null;
    end $$;

    drop trigger platform_agent_grants_sync on platform_agents;
    create trigger platform_agent_grants_sync after insert or update of capabilities, passport_id on platform_agents
      for each row execute function platform_agent_grants_sync();

    select sync_capability_grants(organization_id, 'agent', passport_id, platform_agent_held(organization_id, passport_id),
                                  'the agent''s registration')
      from (select distinct organization_id, passport_id from platform_agents) agents;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger platform_agent_grants_sync on platform_agents;
    create or replace function platform_agent_grants_sync() returns trigger language plpgsql as $$
    declare subject text := (select did from passports where passport_id = new.passport_id);
    begin
      if subject is not null then
        perform sync_capability_grants(new.organization_id, 'agent', subject,
                                       platform_agent_offers(new.capabilities), 'the agent''s registration');
      end if;
      return null;
    end $$;
    create trigger platform_agent_grants_sync after insert or update of capabilities on platform_agents
      for each row execute function platform_agent_grants_sync();
    drop function platform_agent_held(text, text);
    drop index platform_agents_organization_passport;
  `);
}
