import { sql, type Transaction } from 'kysely';
import type { StoreDatabase } from '../database.js';
import { type IdSetEntry, idSetPair, idSetTable } from '../store-dialect.js';

const chunkSize = 50_000;
/** Below this the planner's default guess serves as well as statistics, and ANALYZE is a round trip saved. */
const analyzeFrom = 10_000;

/**
 * Loads an id set into a temporary table dropped at commit, in array-parameter chunks, and
 * analyzes a large one so the planner picks a hash anti-join for `NOT EXISTS` against it.
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
  let loaded = 0;
  const flush = async () => {
    await sql`INSERT INTO ${sql.table(idSetTable)} (scope, value) SELECT * FROM unnest(${scopes}::text[], ${values}::text[]) ON CONFLICT DO NOTHING`.execute(
      trx,
    );
    loaded += values.length;
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
  if (loaded >= analyzeFrom) await sql`ANALYZE ${sql.table(idSetTable)}`.execute(trx);
}
