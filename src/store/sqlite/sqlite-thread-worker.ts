// The SQLite thread's own code (see sqlite-thread.ts, which starts it): one better-sqlite3
// connection, statements prepared once (a bounded cache), each message one operation. It imports
// only node and better-sqlite3, so it bundles on its own (bin/tms-sync.js builds it beside the
// CLI's bundle; from the sources, sqlite-thread-script.ts bundles it in memory).
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { PageMessage, Statement, StatementResult, UpsertWork } from './sqlite-thread.js';

interface Options {
  readonly path: string;
  readonly busyTimeoutMs: number;
  /** better-sqlite3 as the starting thread resolved it: code evaluated from memory resolves nothing itself. */
  readonly driverPath: string;
}

type Counts = { inserted: number; updated: number; unchanged: number; staleSkipped: number };
type Statements = BetterSqlite3.Statement<unknown[], unknown>;

const { path, busyTimeoutMs, driverPath } = workerData as Options;
const Database = createRequire(driverPath)(driverPath) as typeof BetterSqlite3;
const db = new Database(path, { timeout: busyTimeoutMs });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');

const cache = new Map<string, Statements>();
const maxPrepared = 500;

function prepared(sql: string): Statements {
  let statement = cache.get(sql);
  if (statement === undefined) {
    statement = db.prepare(sql);
    if (cache.size >= maxPrepared) cache.delete(cache.keys().next().value!);
    cache.set(sql, statement);
  }
  return statement;
}

function query({ sql, params }: Statement): StatementResult {
  const statement = prepared(sql);
  if (statement.reader) return { rows: statement.all(params) };
  const { changes, lastInsertRowid } = statement.run(params);
  return { changes, lastInsertRowid };
}

/** Runs a page upsert row by row; `RETURNING rowid` tells inserted from updated, no row means guarded. */
function upsert({ upsertSql, sequenceSql, highestSql, rows }: UpsertWork): Counts {
  const write = prepared(upsertSql);
  const stored = prepared(sequenceSql);
  const before = (prepared(highestSql).get() as { highest: number | null }).highest ?? 0;
  const counts: Counts = { inserted: 0, updated: 0, unchanged: 0, staleSkipped: 0 };
  for (const [params, key, sequence] of rows) {
    const written = write.get(params) as { rowid: number } | undefined;
    if (written !== undefined) {
      if (written.rowid > before) counts.inserted++;
      else counts.updated++;
    } else if (
      sequence !== null &&
      ((stored.get(key) as { sequence: number } | undefined)?.sequence ?? -1) > sequence
    ) {
      counts.staleSkipped++;
    } else {
      counts.unchanged++;
    }
  }
  return counts;
}

/** A page's whole transaction (`PageWork`): growth, upsert, statements, checks, transition. */
function page({ growth, upsert: work, statements, check, transition, rollback }: PageMessage) {
  db.exec('BEGIN IMMEDIATE');
  try {
    const refuse = (refused: 'schema' | 'state') => {
      db.exec('ROLLBACK');
      return { refused };
    };
    if (growth) {
      if (prepared(growth.claim.sql).get(growth.claim.params) === undefined) return refuse('schema');
      for (const { sql, params } of growth.statements) prepared(sql).run(params);
    }
    const counts = upsert(work);
    for (const { sql, params } of statements) prepared(sql).run(params);
    if (check && prepared(check.sql).get(check.params) === undefined) return refuse('schema');
    const transitionRow = transition ? prepared(transition.sql).get(transition.params) : undefined;
    if (transition !== undefined && transitionRow === undefined) return refuse('state');
    db.exec(rollback ? 'ROLLBACK' : 'COMMIT');
    return { refused: false as const, counts, transitionRow };
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** Fills the connection's temporary id set with (scope, value) pairs, replacing what it held. */
function loadIdSet({ table, pairs }: { table: string; pairs: ReadonlyArray<readonly [string, string]> }) {
  db.exec(
    `CREATE TEMP TABLE IF NOT EXISTS ${table} (value TEXT NOT NULL, scope TEXT NOT NULL, PRIMARY KEY (value, scope)) WITHOUT ROWID`,
  );
  db.exec(`DELETE FROM temp.${table}`);
  const insert = prepared(`INSERT OR IGNORE INTO temp.${table} (scope, value) VALUES (?, ?)`);
  for (const pair of pairs) insert.run(pair);
}

const operations: Record<string, (args: never) => unknown> = {
  query,
  upsert,
  page,
  loadIdSet,
  close: () => db.close(),
};

parentPort!.on('message', ({ id, op, args }: { id: number; op: string; args: never }) => {
  try {
    parentPort!.postMessage({ id, result: operations[op]!(args) });
  } catch (error) {
    const { name, message, code } = error as { name: string; message: string; code?: string };
    parentPort!.postMessage({ id, error: { name, message, code } });
  }
});
