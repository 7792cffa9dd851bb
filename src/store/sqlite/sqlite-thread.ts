import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteThread, StatementResult } from './sqlite-messages.js';
import {
  openSqliteConnection,
  type SqliteOperations,
  sqliteOperations,
  valuesAtFunction,
} from './sqlite-operations.js';
import { threadScript } from './sqlite-thread-script.js';

export interface SqliteThreadOptions {
  readonly path: string;
  readonly busyTimeoutMs: number;
}

interface Reply {
  readonly id: number;
  readonly ready?: true;
  readonly result?: unknown;
  readonly error?: { name: string; message: string; code?: string };
}

/**
 * Starts the thread (its code: sqlite-thread-worker.ts), which opens the file there (WAL,
 * synchronous=NORMAL). A thread takes ~0.1-0.2 s to boot, longer than a whole run's start needs
 * (open, migrations check, state): until it says it is ready, operations run on a connection of
 * this thread instead (the same operations, sqlite-operations.ts), and move to the thread at the
 * first one outside a transaction after that. An open failure surfaces on the first call, as the
 * store's ping. An in-memory database is one connection's: it waits for the thread.
 */
export function startSqliteThread(options: SqliteThreadOptions): SqliteThread {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let failure: Error | undefined;
  let ready = false;
  let markReady!: () => void;
  let markFailed!: (error: Error) => void;
  const readied = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    markFailed = reject;
  });
  readied.catch(() => undefined);
  let local: LocalConnection | undefined =
    options.path === ':memory:' ? undefined : localConnection(driverPath, options);
  const fail = (error: Error) => {
    failure ??= error;
    markFailed(failure);
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  };
  // Started after this call returns, like the operations' first answers: a failure to start
  // (a missing build) surfaces on the first call, as an open failure does.
  const starting = Promise.resolve().then(() => {
    const worker = new Worker(threadScript(), { workerData: { driverPath, ...options } });
    // Referenced only while a call waits, so an idle store never keeps the process alive.
    worker.unref();
    worker.on('message', (reply: Reply) => {
      if (reply.ready) {
        ready = true;
        markReady();
        return;
      }
      const call = pending.get(reply.id);
      pending.delete(reply.id);
      if (pending.size === 0) worker.unref();
      if (reply.error) call?.reject(Object.assign(new Error(reply.error.message), reply.error));
      else call?.resolve(reply.result);
    });
    // An open failure thrown on the thread (better-sqlite3's SqliteError) arrives as a plain object.
    worker.on('error', (error: unknown) => fail(asError(error)));
    worker.on('exit', (code) => fail(new Error(`the SQLite thread exited (code ${code})`)));
    return worker;
  });
  starting.catch((error: Error) => fail(error));
  // The calls of one synchronous stretch leave as one message, in order: waking the thread is
  // most of what a message costs this thread (~50-100 µs on a busy machine), whatever it holds.
  // Not once per turn of the event loop (setImmediate): a page's message would wait behind the
  // next answer's parsing, and the backfill lost ~10% (1.30x -> 1.18x the raw loop).
  let outbox: Array<{ id: number; op: string; args: unknown }> = [];
  const send = (worker: Worker) => {
    const batch = outbox;
    outbox = [];
    worker.postMessage(batch);
  };
  const post = <T>(worker: Worker, op: keyof SqliteOperations, args: unknown): Promise<T> => {
    const id = nextId++;
    worker.ref();
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (outbox.length === 0) queueMicrotask(() => send(worker));
      outbox.push({ id, op, args });
    });
  };
  // Once the thread is up and no call waits for it, a call posts before it returns: a caller may
  // give the connection up as soon as its message is on its way (a page transaction is one message,
  // run whole and in order on the thread), while it waits for the answer.
  let started: Worker | undefined;
  let waiting = 0;
  const call = <T>(op: keyof SqliteOperations, args: unknown): Promise<T> => {
    if (local && !(ready && local.idle())) {
      try {
        return Promise.resolve(local.run(op, args) as T);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (failure) return Promise.reject(failure);
    if (started && waiting === 0) return post(started, op, args);
    waiting++;
    return starting.then(
      (worker) => {
        waiting--;
        started = worker;
        if (failure) throw failure;
        return post<T>(worker, op, args);
      },
      (error: unknown) => {
        waiting--;
        throw error;
      },
    );
  };
  return {
    query: (sql, params, outsideTransaction = false) => {
      try {
        const here =
          outsideTransaction && ready && local?.idle()
            ? local.runHere(sql, params, { writes: pending.size === 0 && waiting === 0 })
            : undefined;
        if (outsideTransaction && local?.checkpointDue()) {
          // The WAL this connection wrote is copied back by the thread, off this thread's time:
          // passive, it never waits for a reader or a writer, and a failed one is retried next time.
          // Only between transactions: inside one (BEGIN already on its way) it could not run.
          call('query', { sql: 'pragma wal_checkpoint(passive)', params: [] }).catch(() => undefined);
        }
        return here ? Promise.resolve(here) : call('query', { sql, params });
      } catch (error) {
        return Promise.reject(error);
      }
    },
    upsert: (work) => call('upsert', work),
    page: (message) => call('page', message),
    loadIdSet: (table, pairs) => call('loadIdSet', { table, pairs }),
    started: () => readied,
    async close() {
      local?.close();
      local = undefined;
      if (!started) {
        await (await starting).terminate();
        return;
      }
      if (failure) return;
      await call('close', null);
      await (await starting).terminate();
    },
  };
}

function asError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  const fields = typeof thrown === 'object' && thrown !== null ? (thrown as Record<string, unknown>) : {};
  const message = [fields.message, fields.code].find((text) => typeof text === 'string') ?? String(thrown);
  return Object.assign(new Error(message), typeof fields.code === 'string' ? { code: fields.code } : {});
}

interface LocalConnection {
  run(op: keyof SqliteOperations, args: unknown): unknown;
  /**
   * Runs a statement here, outside any transaction, and answers as the thread would: a read
   * always, a single-statement write only when `writes` (the thread has nothing in hand, so the
   * write cannot overtake one sent before it) and the database is not locked at this moment.
   * Undefined otherwise, or for a statement this connection cannot prepare (a temporary table of
   * the thread's): the thread runs those.
   */
  runHere(sql: string, params: readonly unknown[], options: { writes: boolean }): StatementResult | undefined;
  /** No transaction open: the next operation may move to the thread. */
  idle(): boolean;
  /** Whether this connection wrote enough since the last time it said so for the thread to checkpoint. */
  checkpointDue(): boolean;
  close(): void;
}

/**
 * This thread's own connection, opened at its first operation (an open failure throws there). It
 * runs everything until the thread is up, then the statements made outside a transaction that it
 * can run at once: a round trip to the thread costs this thread more than most of them (~50-100 µs
 * of waking the other thread and back against ~10 µs for a keyed read or ~30 µs for a run's row),
 * and WAL lets it read beside the thread's writes. A read sees what the thread committed; callers
 * read what they await, never a page still on its way. A write never waits here for the lock
 * (busy_timeout 0): locked, it goes to the thread, which waits its turn. Statements that parse
 * records (`valuesAtFunction`) stay on the thread: that is its work.
 */
function localConnection(driverPath: string, options: SqliteThreadOptions): LocalConnection {
  let db: BetterSqlite3.Database | undefined;
  let operations: SqliteOperations | undefined;
  const prepared = new Map<string, LocalStatement | null>();
  let beside = false;
  let writesSinceCheckpoint = 0;
  const open = () => {
    if (!operations) {
      const Database = createRequire(import.meta.url)(driverPath) as typeof BetterSqlite3;
      db = openSqliteConnection(Database, options);
      operations = sqliteOperations(db);
    }
    return operations;
  };
  const statementFor = (sql: string) => {
    let statement = prepared.get(sql);
    if (statement === undefined) {
      statement = null;
      if (!sql.includes(valuesAtFunction)) {
        try {
          open();
          const made = db!.prepare(sql);
          if (made.readonly && made.reader) statement = { made, writes: false };
          else if (dataWrite.test(sql)) statement = { made, writes: true };
        } catch {
          // Not preparable here (a temporary table of the thread's connection): the thread's.
        }
      }
      if (prepared.size >= maxPrepared) prepared.delete(prepared.keys().next().value!);
      prepared.set(sql, statement);
    }
    return statement;
  };
  return {
    run: (op, args) => (open()[op] as (input: unknown) => unknown)(args),
    runHere(sql, params, { writes }) {
      if (!beside) {
        // Keyed reads need little cache of their own (the OS caches the file): the thread's
        // connection keeps better-sqlite3's 16 MB, this one SQLite's usual 2 MB.
        open();
        db!.pragma('cache_size = -2000');
        db!.pragma('busy_timeout = 0');
        // Never a checkpoint here (its copy and fsync would stall this thread): see checkpointDue.
        db!.pragma('wal_autocheckpoint = 0');
        beside = true;
      }
      const statement = statementFor(sql);
      if (!statement || (statement.writes && !writes)) return undefined;
      try {
        if (statement.writes) writesSinceCheckpoint++;
        if (statement.made.reader) return { rows: statement.made.all(params) };
        const { changes, lastInsertRowid } = statement.made.run(params);
        return { changes, lastInsertRowid };
      } catch (error) {
        if (isBusy(error)) return undefined;
        throw error;
      }
    },
    idle: () => !db?.inTransaction,
    checkpointDue() {
      if (writesSinceCheckpoint < writesPerCheckpoint) return false;
      writesSinceCheckpoint = 0;
      return true;
    },
    close: () => db?.close(),
  };
}

interface LocalStatement {
  readonly made: BetterSqlite3.Statement;
  readonly writes: boolean;
}

/** The writes this connection may run: data only (a temporary table or a pragma is the thread's connection's). */
const dataWrite = /^\s*(insert|update|delete)\s/i;

/** SQLite answered that another connection holds the lock (SQLITE_BUSY and its extended codes). */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Writes of this thread's connection between two checkpoints the thread is asked for: a run's row
 * is a few pages of WAL, so ~1,000 pages, SQLite's own auto-checkpoint interval.
 */
const writesPerCheckpoint = 200;

/** Statements this thread keeps prepared. */
const maxPrepared = 200;
