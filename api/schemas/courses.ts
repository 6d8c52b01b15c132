/** Courses, whose completion is the evidence a grant can cite. */
import { Course } from '../../contracts/aggregates/capability';
import { viewOf } from '../../lib/shape';
import { CapabilityIdSchema } from './passports';
import { DidSchema, NonBlankText } from './common';
import { z } from './zod';

const course = viewOf(Course, {
  rename: { course_id: 'courseId', created_at: 'createdAt' },
  hide: ['organization_id', 'created_by'],
});
export const CourseSchema = course.schema.openapi('Course');
export const courseView = course.of;

export const CreateCourseSchema = z
  .object({
    title: NonBlankText(200),
    description: NonBlankText(5000),
    capabilities: z.array(CapabilityIdSchema).max(50).default([]),
  })
  .strict()
  .openapi('CreateCourseRequest');

export const CourseParamsSchema = z.object({
  course_id: z.string().regex(/^crs_[A-Za-z0-9-]{1,100}$/, 'must be a course id (crs_…)'),
});

export const CompleteCourseSchema = z.object({ subjectDid: DidSchema }).strict().openapi('CompleteCourseRequest');

export const CourseCompletionSchema = z
  .object({ completionId: z.string(), courseId: z.string(), subjectDid: z.string(), completedAt: z.string() })
  .openapi('CourseCompletion');
