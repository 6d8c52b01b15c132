import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import type { Course } from '../../contracts/aggregates/capability';
import { definedNames } from '../../db/capabilities';
import { findCourse, insertCompletion, insertCourse, type CourseCompletionRow } from '../../db/courses';
import { capabilityUri, ownCapabilityName } from '../../domain/capabilities/uris';
import type { Principal } from '../identity/scopes';
import { orgSegments } from './definitions';

export type CreateCourseOutcome =
  { ok: true; course: Course } | { ok: false; code: 'capability_not_defined'; detail: string };

/** A course teaching capabilities the organization defines (stored by their URIs). */
export async function createCourse(
  db: Knex,
  principal: Principal,
  body: { title: string; description: string; capabilities: string[] },
): Promise<CreateCourseOutcome> {
  const org = principal.organization_id;
  const segments = await orgSegments(db, org);
  const names = body.capabilities.map((uri) => ownCapabilityName(uri, segments.own));
  const defined = await definedNames(
    db,
    org,
    names.filter((name): name is string => name !== undefined),
  );
  const missing = body.capabilities.filter((_, index) => !defined.has(names[index] ?? ''));
  if (missing.length > 0)
    return {
      ok: false,
      code: 'capability_not_defined',
      detail: `Not defined in your organization: ${missing.join(', ')}`,
    };
  const course: Course = {
    course_id: `crs_${randomUUID()}`,
    organization_id: org,
    title: body.title,
    description: body.description,
    capabilities: [...new Set(names.map((name) => capabilityUri(segments.preferred, name!)))],
    created_by: principal.id,
    created_at: new Date().toISOString(),
  };
  await insertCourse(db, course);
  return { ok: true, course };
}

/** Records that a person or agent completed a course: the evidence a grant of its capabilities cites. */
export async function completeCourse(
  db: Knex,
  principal: Principal,
  courseId: string,
  subjectDid: string,
): Promise<CourseCompletionRow | undefined> {
  const course = await findCourse(db, principal.organization_id, courseId);
  if (!course) return undefined;
  return insertCompletion(db, {
    completion_id: `ccp_${randomUUID()}`,
    organization_id: principal.organization_id,
    course_id: courseId,
    subject_did: subjectDid,
    recorded_by: principal.id,
    completed_at: new Date().toISOString(),
  });
}
