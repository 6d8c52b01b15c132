import type { Knex } from 'knex';

/**
 * The capability graph: definitions (keyed by their name within an organization, implying others), grants of
 * them to people and agents (weight, issuer, optional expiry, revocation), the proofs agents submitted,
 * versioned ontology packages (a snapshot of the promoted definitions per promotion), courses and their
 * completions (evidence a grant cites).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table capability_definitions (
      organization_id text not null references organizations (organization_id),
      capability_name text not null,
      capability_id text not null,
      name text not null,
      description text not null,
      tags jsonb not null default '[]',
      implies jsonb not null default '[]',
      skills jsonb not null default '[]',
      version text,
      status text not null default 'proposed',
      promoted_at timestamptz,
      promote_reason text,
      promoted_by text,
      created_by text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (organization_id, capability_name)
    );
    create index capability_definitions_implies on capability_definitions using gin (implies);

    create table capability_grants (
      grant_id text primary key,
      organization_id text not null references organizations (organization_id),
      capability_name text not null,
      capability_id text not null,
      subject_type text not null,
      subject_did text not null,
      weight real not null,
      issuer_did text not null,
      issuer_passport_id text,
      evidence jsonb,
      source text not null,
      created_by text not null,
      created_at timestamptz not null,
      expires_at timestamptz,
      revoked_at timestamptz,
      revoked_by text,
      revoke_reason text,
      foreign key (organization_id, capability_name) references capability_definitions (organization_id, capability_name)
    );
    create index capability_grants_live on capability_grants (organization_id, capability_name) where revoked_at is null;
    create index capability_grants_subject on capability_grants (organization_id, subject_did);

    create table capability_proofs (
      proof_id text primary key,
      organization_id text not null references organizations (organization_id),
      grant_id text not null references capability_grants (grant_id),
      agent_did text not null,
      skill_id text not null,
      task_id text,
      kid text not null,
      proof_document text not null,
      submitted_by text not null,
      created_at timestamptz not null
    );
    create index capability_proofs_grant on capability_proofs (grant_id);

    create table ontology_packages (
      organization_id text not null references organizations (organization_id),
      name text not null,
      version integer not null,
      definitions jsonb not null,
      reason text not null,
      created_by text not null,
      created_at timestamptz not null,
      primary key (organization_id, name, version)
    );

    create table courses (
      course_id text primary key,
      organization_id text not null references organizations (organization_id),
      title text not null,
      description text not null,
      capabilities jsonb not null,
      created_by text not null,
      created_at timestamptz not null
    );
    create index courses_organization on courses (organization_id, created_at, course_id);

    create table course_completions (
      completion_id text primary key,
      organization_id text not null references organizations (organization_id),
      course_id text not null references courses (course_id),
      subject_did text not null,
      recorded_by text not null,
      completed_at timestamptz not null,
      unique (course_id, subject_did)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop table course_completions;
    drop table courses;
    drop table ontology_packages;
    drop table capability_proofs;
    drop table capability_grants;
    drop table capability_definitions;
  `);
}
