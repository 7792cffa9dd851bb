import { sql, type Transaction } from 'kysely';
import type { StoreDatabase } from '../database.js';
import { idSetTable } from '../store-dialect.js';

const chunkSize = 50_000;

/**
 * Loads an id set into a temporary table dropped at commit, in array-parameter chunks, and
 * analyzes it so the planner picks a hash anti-join for `NOT EXISTS` against a large set.
 */
export async function loadPostgresIdSet(
  trx: Transaction<StoreDatabase>,
  values: Iterable<string>,
): Promise<void> {
  await sql`CREATE TEMP TABLE IF NOT EXISTS ${sql.table(idSetTable)} (value text PRIMARY KEY) ON COMMIT DROP`.execute(
    trx,
  );
  await sql`TRUNCATE ${sql.table(idSetTable)}`.execute(trx);
  let chunk: string[] = [];
  const flush = () =>
    sql`INSERT INTO ${sql.table(idSetTable)} SELECT unnest(${chunk}::text[]) ON CONFLICT DO NOTHING`.execute(
      trx,
    );
  for (const value of values) {
    chunk.push(value);
    if (chunk.length === chunkSize) {
      await flush();
      chunk = [];
    }
  }
  if (chunk.length > 0) await flush();
  await sql`ANALYZE ${sql.table(idSetTable)}`.execute(trx);
}
