import { sql, type Transaction } from 'kysely';
import type { StoreDatabase } from '../database.js';
import { type IdSetEntry, idSetPair, idSetTable } from '../store-dialect.js';

const chunkSize = 50_000;

/**
 * Loads an id set into a temporary table dropped at commit, in array-parameter chunks, and
 * analyzes it: without statistics the planner guesses a size and, for a set of a few ids against
 * a table of a million rows, scans the whole table (docs/store.md, child refresh).
 */
export async function loadPostgresIdSet(
  trx: Transaction<StoreDatabase>,
  entries: Iterable<IdSetEntry>,
): Promise<void> {
  await sql`CREATE TEMP TABLE IF NOT EXISTS ${sql.table(idSetTable)} (value text NOT NULL, scope text NOT NULL, PRIMARY KEY (value, scope)) ON COMMIT DROP`.execute(
    trx,
  );
  await sql`TRUNCATE ${sql.table(idSetTable)}`.execute(trx);
  let scopes: string[] = [];
  let values: string[] = [];
  const flush = async () => {
    await sql`INSERT INTO ${sql.table(idSetTable)} (scope, value) SELECT * FROM unnest(${scopes}::text[], ${values}::text[]) ON CONFLICT DO NOTHING`.execute(
      trx,
    );
    scopes = [];
    values = [];
  };
  for (const entry of entries) {
    const [scope, value] = idSetPair(entry);
    scopes.push(scope);
    values.push(value);
    if (values.length === chunkSize) await flush();
  }
  if (values.length > 0) await flush();
  await sql`ANALYZE ${sql.table(idSetTable)}`.execute(trx);
}
