import type { KyselyPlugin } from 'kysely';
import type { Logger } from '../../logger.js';
import { redactUrl } from '../../secrets/url-credentials.js';
import { pageWorkTransaction } from '../page-work-transaction.js';
import { type StoreDialect, withPlugins } from '../store-dialect.js';
import { postgresEnqueueParentsQueries } from './postgres-child-queue.js';
import { postgresHistory } from './postgres-history.js';
import { loadPostgresIdSet } from './postgres-id-set.js';
import { createPostgresKysely } from './postgres-kysely.js';
import { postgresDropPartitionRuns, postgresPartitionRuns } from './postgres-partition-runs.js';
import { postgresTypes } from './postgres-types.js';
import { createPostgresPageUpsert } from './postgres-upsert.js';

export interface PostgresDialectOptions {
  /** A `postgres://` URL. */
  readonly url: string;
  /** Connections the store needs at once; the process's pool of the database holds the largest number asked. @default 10 */
  readonly poolSize?: number;
  readonly logger?: Logger | undefined;
  /** The schema every statement of the store works in (its `search_path`, alone). @default the server's default */
  readonly schema?: string | undefined;
  /** Kysely plugins on every statement, a page's transaction's included. @default none */
  readonly plugins?: readonly KyselyPlugin[] | undefined;
}

/** The store on the process's pool of its database (lazily: the first query takes it and connects). */
export function openPostgresDialect(options: PostgresDialectOptions): StoreDialect {
  const db = withPlugins(
    createPostgresKysely({
      connectionString: options.url,
      poolSize: options.poolSize ?? 10,
      logger: options.logger,
      schema: options.schema,
    }),
    options.plugins,
  );
  return {
    name: 'postgres',
    db,
    schema: options.schema,
    // A key only; without the password all the same, in case it is ever shown.
    database: redactUrl(options.url),
    types: postgresTypes,
    createPageUpsert: (table) => createPostgresPageUpsert(table),
    enqueueParentsQueries: postgresEnqueueParentsQueries,
    commitPageWork: (work) => pageWorkTransaction(db, work),
    runsPageWorkInOrder: false,
    readsLocally: false,
    loadIdSet: (trx, values) => loadPostgresIdSet(trx, values),
    history: postgresHistory,
    partitionRuns: { create: postgresPartitionRuns, drop: postgresDropPartitionRuns },
  };
}
