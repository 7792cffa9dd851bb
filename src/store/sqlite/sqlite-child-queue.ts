import type BetterSqlite3 from 'better-sqlite3';
import type { EnqueueParents } from '../store-dialect.js';

/** Queues parent ids with one statement per child stream: the ids go in as one JSON array. */
export function createSqliteEnqueueParents(database: BetterSqlite3.Database): EnqueueParents {
  let insert: BetterSqlite3.Statement | undefined;
  return async (_trx, children, parentIds, queuedAt) => {
    if (parentIds.length === 0) return;
    // Prepared on first use: the table exists only after migrations. `WHERE true` keeps SQLite
    // from reading ON CONFLICT as a join constraint of the SELECT.
    insert ??= database.prepare(
      'INSERT INTO child_queue (stream, parent_id, queued_at, taken_at) SELECT ?, value, ?, NULL FROM json_each(?) WHERE true ' +
        'ON CONFLICT (stream, parent_id) DO UPDATE SET queued_at = excluded.queued_at, taken_at = NULL',
    );
    const ids = JSON.stringify(parentIds);
    for (const child of children) insert.run(child, queuedAt, ids);
  };
}
