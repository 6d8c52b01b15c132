import type { Knex } from 'knex';
import { COURSE_SORTABLE, findCourse, listCourses } from '../../db/courses';
import { completeCourse, createCourse } from '../../services/capabilities/courses';
import { effectivePermissions } from '../../services/capabilities/permissions';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup } from '../route-group';
import { listQuerySchema } from '../schemas/common';
import { PermissionsSchema } from '../schemas/capabilities';
import {
  CompleteCourseSchema,
  CourseCompletionSchema,
  CourseParamsSchema,
  CourseSchema,
  CreateCourseSchema,
  courseView,
} from '../schemas/courses';

/** Courses (list, create, read, record a completion) and the caller's permissions. */
export function registerCourseRoutes(api: ApiBuilder, deps: { db: Knex }): void {
  const courses = routeGroup(api, { tags: ['Courses'], auth: 'platform:read', rateLimit: 'default' });
  courses.list({
    path: '/v1/courses',
    operationId: 'listCourses',
    summary: 'List courses',
    query: listQuerySchema,
    page: { description: 'A page of courses', item: CourseSchema, name: 'CoursePage' },
    sort: { allowed: COURSE_SORTABLE, fallback: '-created_at', uniqueKey: 'course_id' },
    list: ({ principal, page }) => listCourses(deps.db, principal.organization_id, page),
    view: courseView,
  });
  courses.route({
    method: 'post',
    path: '/v1/courses',
    operationId: 'createCourse',
    summary: 'Create a course',
    description: 'capabilities are capability URIs your organization defines: what a completion is evidence of.',
    auth: 'platform:admin',
    request: { body: CreateCourseSchema },
    responses: {
      201: { description: 'The course', schema: CourseSchema },
      422: { description: 'capability_not_defined' },
    },
    handler: async ({ body, principal }) => {
      const outcome = await createCourse(deps.db, principal, body);
      if (!outcome.ok) throw new Problem(outcome.code, outcome.detail);
      return { status: 201, body: courseView(outcome.course) };
    },
  });
  courses.get({
    path: '/v1/courses/{course_id}',
    operationId: 'getCourse',
    summary: 'Read a course',
    params: CourseParamsSchema,
    found: { description: 'The course', schema: CourseSchema },
    missing: { code: 'course_not_found' },
    find: ({ params, principal }) => findCourse(deps.db, principal.organization_id, params.course_id),
    view: courseView,
  });
  courses.route({
    method: 'post',
    path: '/v1/courses/{course_id}/completions',
    operationId: 'recordCourseCompletion',
    summary: 'Record that a person or agent completed a course',
    description:
      'Once per subject and course (a repeat answers the first). A grant cites it as evidence.courseCompletionId.',
    auth: 'platform:admin',
    request: { params: CourseParamsSchema, body: CompleteCourseSchema },
    responses: {
      201: { description: 'The completion', schema: CourseCompletionSchema },
      404: { description: 'course_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const completion = await completeCourse(deps.db, principal, params.course_id, body.subjectDid);
      if (!completion) throw new Problem('course_not_found');
      return {
        status: 201,
        body: {
          completionId: completion.completion_id,
          courseId: completion.course_id,
          subjectDid: completion.subject_did,
          completedAt: completion.completed_at,
        },
      };
    },
  });
  courses.route({
    method: 'get',
    path: '/v1/permissions',
    operationId: 'getPermissions',
    summary: 'The caller’s effective capabilities, and where each comes from',
    description:
      'source role: what the credential’s scopes imply (or being a signed-in person); delegation: what a delegation token carries; grant: the ' +
      'capability grants of the caller’s Passport (with what they imply).',
    tags: ['Capabilities'],
    responses: { 200: { description: 'The permissions', schema: PermissionsSchema } },
    handler: async ({ principal }) => ({
      status: 200,
      body: {
        principal: { id: principal.id, kind: principal.kind, did: principal.actor?.did ?? null },
        permissions: (await effectivePermissions(deps.db, principal)).map(({ expires_at, ...p }) => ({
          ...p,
          expiresAt: expires_at,
        })),
      },
    }),
  });
}
