// The SQLite thread's own code (see sqlite-thread.ts, which starts it): one better-sqlite3
// connection (sqlite-operations.ts), each message the operations sent together. The thread runs
// its build in dist/ (sqlite-thread-script.ts).
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { openSqliteConnection, type SqliteConnectionOptions, sqliteOperations } from './sqlite-operations.js';

interface Options extends SqliteConnectionOptions {
  /** better-sqlite3 as the starting thread resolved it: both threads load the same driver. */
  readonly driverPath: string;
}

const options = workerData as Options;
const Database = createRequire(options.driverPath)(options.driverPath) as typeof BetterSqlite3;
const operations = sqliteOperations(openSqliteConnection(Database, options)) as unknown as Record<
  string,
  (args: never) => unknown
>;
// The starting thread runs the first operations itself until it hears this (sqlite-thread.ts).
parentPort!.postMessage({ ready: true });

// A message is the operations the starting thread sent together, in order; each is answered as
// soon as it ran, so a short one never waits for a long one after it.
parentPort!.on('message', (batch: Array<{ id: number; op: string; args: never }>) => {
  for (const { id, op, args } of batch) {
    try {
      parentPort!.postMessage({ id, result: operations[op]!(args) });
    } catch (error) {
      const { name, message, code } = error as { name: string; message: string; code?: string };
      parentPort!.postMessage({ id, error: { name, message, code } });
    }
  }
});
