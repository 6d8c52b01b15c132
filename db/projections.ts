import type { Knex } from 'knex';

/**
 * Writes a workflow's projected state: inserts the row, or replaces the stored one only when this one is
 * newer (a higher version), so a retried or late projection never overwrites a later one. The key and the
 * columns set once (creation times) are left as first written.
 */
export async function upsertProjection(
  db: Knex,
  table: string,
  keep: { key: string; once: string[] },
  row: Record<string, unknown> & { version: number },
): Promise<void> {
  const changes = Object.fromEntries(
    Object.entries(row).filter(([column]) => column !== keep.key && !keep.once.includes(column)),
  );
  await db(table).insert(row).onConflict(keep.key).merge(changes).where(`${table}.version`, '<', row.version);
}
