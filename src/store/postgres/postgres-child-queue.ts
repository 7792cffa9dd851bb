import { sql } from 'kysely';
import type { EnqueueParents } from '../store-dialect.js';

/** Queues parent ids for every child stream in one statement: two array parameters, one round trip. */
export const enqueuePostgresParents: EnqueueParents = async (trx, children, parentIds, queuedAt) => {
  if (children.length === 0 || parentIds.length === 0) return;
  await sql`INSERT INTO child_queue (stream, parent_id, queued_at, taken_at)
    SELECT child, id, ${queuedAt}::timestamptz, NULL
    FROM unnest(${[...children]}::text[]) AS child CROSS JOIN unnest(${[...parentIds]}::text[]) AS id
    ON CONFLICT (stream, parent_id) DO UPDATE SET queued_at = excluded.queued_at, taken_at = NULL`.execute(
    trx,
  );
};
