import type { CompiledQuery, Kysely } from 'kysely';
import type { StoreDatabase } from './database.js';
import type { RejectedRecord } from './store.js';

export interface RejectBatch {
  readonly runId: number | null;
  readonly stream: string;
  readonly scope: string | null;
  readonly records: readonly RejectedRecord[];
  readonly now: Date;
}

const chunkSize = 100;

/** Inserts rejects into `rejected_records`, inside whatever transaction `db` is. */
export async function insertRejects(db: Kysely<StoreDatabase>, batch: RejectBatch): Promise<void> {
  for (const query of rejectQueries(db, batch)) await db.executeQuery(query);
}

/** The statements inserting the rejects, chunked (none for none). */
export function rejectQueries(db: Kysely<StoreDatabase>, batch: RejectBatch): CompiledQuery[] {
  const rejectedAt = batch.now.toISOString();
  const rows = batch.records.map((record) => ({
    run_id: batch.runId,
    stream: batch.stream,
    scope: batch.scope,
    record_key: record.key,
    reason: record.reason,
    data: JSON.stringify(record.data) ?? 'null',
    rejected_at: rejectedAt,
  }));
  const queries: CompiledQuery[] = [];
  for (let start = 0; start < rows.length; start += chunkSize) {
    queries.push(
      db
        .insertInto('rejected_records')
        .values(rows.slice(start, start + chunkSize))
        .compile(),
    );
  }
  return queries;
}
