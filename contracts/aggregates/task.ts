import { z } from 'zod';

/**
 * A task submitted to the workforce: what is asked, by whom, and the routing that decides who does it.
 * Services hold it as the platform_tasks table stores it (db/tasks.ts); the API view (api/schemas/tasks.ts)
 * adds where its routing stands. Fields are in the order the view shows them.
 */
export const Task = z.object({
  task_id: z.string(),
  organization_id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  task_type: z.string(),
  routing_id: z.string().meta({ description: 'Its routing at /v1/orch/routing/{routing_id}' }),
  agent_uri: z.string().nullable(),
  /** The submission as given, for the record. */
  request: z.record(z.string(), z.unknown()),
  submitted_by: z.string(),
  created_at: z.date(),
});
export type Task = z.infer<typeof Task>;
