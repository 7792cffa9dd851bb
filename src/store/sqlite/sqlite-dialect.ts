import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CompiledQuery, KyselyPlugin } from 'kysely';
import { type PageWorkResult, type StoreDialect, withPlugins } from '../store-dialect.js';
import { sqliteEnqueueParentsQueries } from './sqlite-child-queue.js';
import { sqliteHistory } from './sqlite-history.js';
import { loadSqliteIdSet } from './sqlite-id-set.js';
import { createSqliteKysely } from './sqlite-kysely.js';
import type { Statement } from './sqlite-messages.js';
import { sqliteDropPartitionRuns, sqlitePartitionRuns } from './sqlite-partition-runs.js';
import { isDefaultDataDirectory } from './sqlite-path-problem.js';
import { startSqliteThread } from './sqlite-thread.js';
import { sqliteTypes } from './sqlite-types.js';
import { createSqlitePageUpsert, type ThreadUpsert } from './sqlite-upsert.js';

export interface SqliteDialectOptions {
  /** File path, or `:memory:`; the directory must exist, but for `./data`, which is made. */
  readonly path: string;
  /** How long a write waits for another process's lock. @default 5000 */
  readonly busyTimeoutMs?: number;
  /** Kysely plugins on every statement built with Kysely. @default none */
  readonly plugins?: readonly KyselyPlugin[] | undefined;
}

/**
 * Opens the SQLite file on its own thread (sqlite-thread.ts) in WAL mode with synchronous=NORMAL
 * (durable at page-transaction granularity).
 */
export function openSqliteDialect(options: SqliteDialectOptions): StoreDialect {
  if (options.path !== ':memory:') makeDataDirectory(dirname(options.path));
  const thread = startSqliteThread({ path: options.path, busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
  const db = withPlugins(createSqliteKysely(thread), options.plugins);
  return {
    name: 'sqlite',
    db,
    types: sqliteTypes,
    createPageUpsert: (table) => createSqlitePageUpsert(thread, table),
    enqueueParentsQueries: sqliteEnqueueParentsQueries,
    // The whole page transaction is one message: the thread never waits for this one between
    // statements, so it writes this page while this thread prepares the next. The connection is
    // held only until the message is sent (the thread runs messages whole and in order), so the
    // next page's message can wait at the thread behind this one (write-page.ts, "sent early").
    commitPageWork: async (work) => {
      let reply: Promise<PageWorkResult> | undefined;
      await db.connection().execute(async () => {
        reply = thread.page({
          growth: work.growth && {
            claim: statementOf(work.growth.claim),
            statements: work.growth.statements.map(statementOf),
          },
          before: work.before.map(statementOf),
          upsert: (work.upsert as ThreadUpsert).work,
          statements: work.statements.map(statementOf),
          check: work.check && statementOf(work.check),
          transition: work.transition && statementOf(work.transition),
          rollback: work.rollback,
          order: work.order,
        });
        reply.catch(() => undefined);
      });
      return reply!;
    },
    runsPageWorkInOrder: true,
    readsLocally: true,
    loadIdSet: (_trx, values) => loadSqliteIdSet(thread, values),
    history: sqliteHistory,
    partitionRuns: { create: sqlitePartitionRuns, drop: sqliteDropPartitionRuns },
  };
}

function statementOf(query: CompiledQuery): Statement {
  return { sql: query.sql, params: query.parameters };
}

/** The default `./data` is made when missing; any other directory must exist (sqlite-path-problem.ts). */
function makeDataDirectory(directory: string): void {
  if (isDefaultDataDirectory(directory) && !existsSync(directory)) mkdirSync(directory);
}
