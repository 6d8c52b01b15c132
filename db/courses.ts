import type { Knex } from 'knex';
import { Course } from '../contracts/aggregates/capability';
import { rowOf } from '../lib/shape';
import { aggregateOf } from './capabilities';
import { paginate, type Page, type PageRequest } from './pagination';

const courseRow = rowOf(Course).of;

export async function insertCourse(db: Knex, course: Course): Promise<void> {
  await db('courses').insert(courseRow(course));
}

export async function findCourse(db: Knex, organizationId: string, courseId: string): Promise<Course | undefined> {
  const row = await db('courses')
    .where({ organization_id: organizationId, course_id: courseId })
    .first<Record<string, unknown> | undefined>();
  return row && (aggregateOf(row) as unknown as Course);
}

export const COURSE_SORTABLE = { created_at: 'created_at', title: 'title' };

export async function listCourses(db: Knex, organizationId: string, page: PageRequest): Promise<Page<Course>> {
  const found = await paginate<Record<string, unknown>>(
    db('courses').select('*').where({ organization_id: organizationId }),
    page,
  );
  return { ...found, data: found.data.map((row) => aggregateOf(row) as unknown as Course) };
}

export interface CourseCompletionRow {
  completion_id: string;
  organization_id: string;
  course_id: string;
  subject_did: string;
  recorded_by: string;
  completed_at: string;
}

/** Records a completion once per course and subject; a repeat returns the first. */
export async function insertCompletion(db: Knex, row: CourseCompletionRow): Promise<CourseCompletionRow> {
  await db('course_completions').insert(row).onConflict(['course_id', 'subject_did']).ignore();
  const stored = await db('course_completions')
    .where({ course_id: row.course_id, subject_did: row.subject_did })
    .first<Record<string, unknown>>();
  return aggregateOf(stored) as unknown as CourseCompletionRow;
}

export async function findCompletion(
  db: Knex,
  organizationId: string,
  completionId: string,
): Promise<(CourseCompletionRow & { capabilities: string[] }) | undefined> {
  const row = await db('course_completions as c')
    .join('courses', 'courses.course_id', 'c.course_id')
    .where({ 'c.organization_id': organizationId, 'c.completion_id': completionId })
    .first<Record<string, unknown> | undefined>('c.*', 'courses.capabilities');
  return row && (aggregateOf(row) as unknown as CourseCompletionRow & { capabilities: string[] });
}
