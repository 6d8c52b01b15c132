import type { Knex } from 'knex';
import { ownCapabilityName } from '../../domain/capabilities/uris';
import { heldCapabilities } from './grants';
import { orgSegments } from './definitions';

export interface SkillVerification {
  skill: string;
  verified: boolean;
  capabilityId: string | null;
  grantId: string | null;
  weight: number | null;
  reason: string;
}

/**
 * Whether a subject holds each skill now: a skill is a capability URI (held directly or implied), or a skill a
 * held capability's definition lists.
 */
export async function verifySkills(
  db: Knex,
  organizationId: string,
  subjectDid: string,
  skills: readonly string[],
): Promise<SkillVerification[]> {
  const [held, segments] = await Promise.all([
    heldCapabilities(db, organizationId, subjectDid),
    orgSegments(db, organizationId),
  ]);
  const byName = new Map(held.map((h) => [ownCapabilityName(h.capability_id, segments.own)!, h]));
  const listed = await db('capability_definitions')
    .where({ organization_id: organizationId })
    .whereIn('capability_name', [...byName.keys()])
    .select<{ capability_name: string; skills: string[] }[]>('capability_name', 'skills');
  return skills.map((skill) => {
    const name = ownCapabilityName(skill, segments.own);
    const direct = name ? byName.get(name) : undefined;
    const via = direct ?? byName.get(listed.find((d) => d.skills.includes(skill))?.capability_name ?? '');
    if (!via)
      return {
        skill,
        verified: false,
        capabilityId: null,
        grantId: null,
        weight: null,
        reason: 'no live grant holds it',
      };
    const how = direct
      ? via.implied_by
        ? `implied by ${via.implied_by}`
        : 'granted'
      : `listed by ${via.capability_id}`;
    return {
      skill,
      verified: true,
      capabilityId: via.capability_id,
      grantId: via.grant_id,
      weight: via.weight,
      reason: `${how} (grant ${via.grant_id}, issued by ${via.issuer_did})`,
    };
  });
}
