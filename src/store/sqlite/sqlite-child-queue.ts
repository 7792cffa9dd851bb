import { CompiledQuery } from 'kysely';
import type { EnqueueParentsQueries } from '../store-dialect.js';

// `WHERE true` keeps SQLite from reading ON CONFLICT as a join constraint of the SELECT.
const enqueueSql =
  'INSERT INTO child_queue (stream, parent_id, queued_at, taken_at) SELECT ?, value, ?, NULL FROM json_each(?) WHERE true ' +
  'ON CONFLICT (stream, parent_id) DO UPDATE SET queued_at = excluded.queued_at, taken_at = NULL';

/** Queues parent ids with one statement per child stream: the ids go in as one JSON array. */
export const sqliteEnqueueParentsQueries: EnqueueParentsQueries = (children, parentIds, queuedAt) => {
  if (children.length === 0 || parentIds.length === 0) return [];
  const ids = JSON.stringify(parentIds);
  return children.map((child) => CompiledQuery.raw(enqueueSql, [child, queuedAt, ids]));
};
