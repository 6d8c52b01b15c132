import type { Knex } from 'knex';

/**
 * Grants are the one source of who holds a capability. A reviewer's capabilities (PUT /v1/orch/reviewers, a
 * direct insert, the dev seed) and a platform agent's offered capabilities are written through to grants of
 * source 'migration' by a trigger, which defines a missing capability first (lower-cased name, as the
 * matcher keys it); today's rows are carried over the same way. Reads of a reviewer's capabilities derive
 * them from the live grants (reviewer_capabilities), so a grant made by the API, an expiry or a revocation is
 * what routing sees.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function sync_capability_grants(org text, stype text, subject text, held jsonb, why text)
    returns void language plpgsql as $$
    declare
      segment text := coalesce((select slug from organizations where organization_id = org), org);
      issuer text := coalesce(
        (select did from passports where organization_id = org and type = 'organization' order by created_at limit 1),
        'did:web:handoff.local:orch-core');
    begin
      insert into capability_definitions
        (organization_id, capability_name, capability_id, name, description, created_by, created_at, updated_at)
      select org, k, 'capability://' || segment || '/' || k, k, 'Defined from ' || why, 'migration', now(), now()
        from jsonb_object_keys(held) k
      on conflict do nothing;
      update capability_grants g
         set revoked_at = now(), revoked_by = 'migration', revoke_reason = 'Changed in ' || why
       where g.organization_id = org and g.subject_type = stype and g.subject_did = subject
         and g.source = 'migration' and g.revoked_at is null
         and (held ->> g.capability_name)::real is distinct from g.weight;
      insert into capability_grants
        (grant_id, organization_id, capability_name, capability_id, subject_type, subject_did, weight,
         issuer_did, source, created_by, created_at)
      select 'cgr_' || gen_random_uuid(), org, h.key, 'capability://' || segment || '/' || h.key, stype, subject,
             h.value::text::real, issuer, 'migration', 'migration', now()
        from jsonb_each(held) h
       where not exists (
         select 1 from capability_grants g
          where g.organization_id = org and g.subject_type = stype and g.subject_did = subject
            and g.source = 'migration' and g.revoked_at is null and g.capability_name = h.key);
    end $$;

    create function lower_keys(held jsonb) returns jsonb language sql immutable as $$
      select coalesce(jsonb_object_agg(lower(key), value), '{}'::jsonb) from jsonb_each(held)
    $$;

    create function reviewer_grants_sync() returns trigger language plpgsql as $$
    begin
      perform sync_capability_grants(new.organization_id, 'person', new.did, lower_keys(new.capabilities),
                                     'the reviewer''s capabilities');
      return null;
    end $$;
    create trigger reviewer_grants_sync after insert or update of capabilities on reviewers
      for each row execute function reviewer_grants_sync();

    create function platform_agent_offers(capabilities text[]) returns jsonb language sql immutable as $$
      select coalesce(jsonb_object_agg(lower(substring(uri from '([^/]+)$')), 1), '{}'::jsonb) from unnest(capabilities) uri
    $$;

    create function platform_agent_grants_sync() returns trigger language plpgsql as $$
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

    -- A reviewer's capabilities: its live grants, the strongest weight of each (one index scan; implications
    -- are followed by POST /v1/capabilities/match, not here: deriving them per reviewer cost ~10 ms each).
    create function reviewer_capabilities(org text, subject text) returns jsonb language sql stable as $$
      select coalesce(jsonb_object_agg(name, weight), '{}'::jsonb)
        from (select g.capability_name as name, max(g.weight) as weight from capability_grants g
               where g.organization_id = org and g.subject_did = subject and g.subject_type = 'person'
                 and g.revoked_at is null and (g.expires_at is null or g.expires_at > now())
               group by g.capability_name) strongest
    $$;

    select sync_capability_grants(organization_id, 'person', did, lower_keys(capabilities), 'the reviewer''s capabilities')
      from reviewers;
    select sync_capability_grants(a.organization_id, 'agent', p.did, platform_agent_offers(a.capabilities),
                                  'the agent''s registration')
      from platform_agents a join passports p on p.passport_id = a.passport_id;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger platform_agent_grants_sync on platform_agents;
    drop trigger reviewer_grants_sync on reviewers;
    drop function platform_agent_grants_sync();
    drop function reviewer_grants_sync();
    drop function reviewer_capabilities(text, text);
    drop function platform_agent_offers(text[]);
    drop function lower_keys(jsonb);
    drop function sync_capability_grants(text, text, text, jsonb, text);
  `);
}
