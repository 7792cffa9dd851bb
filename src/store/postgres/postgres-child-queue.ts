import { CompiledQuery } from 'kysely';
import type { EnqueueParentsQueries } from '../store-dialect.js';

const enqueueSql = `INSERT INTO child_queue (stream, parent_id, queued_at, taken_at)
  SELECT child, id, $1::timestamptz, NULL
  FROM unnest($2::text[]) AS child CROSS JOIN unnest($3::text[]) AS id
  ON CONFLICT (stream, parent_id) DO UPDATE SET queued_at = excluded.queued_at, taken_at = NULL`;

/** Queues parent ids for every child stream in one statement: two array parameters, one round trip. */
export const postgresEnqueueParentsQueries: EnqueueParentsQueries = (children, parentIds, queuedAt) =>
  children.length === 0 || parentIds.length === 0
    ? []
    : [CompiledQuery.raw(enqueueSql, [queuedAt, [...children], [...parentIds]])];
