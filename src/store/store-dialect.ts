import type {
  ColumnDefinitionBuilder,
  CompiledQuery,
  CreateTableBuilder,
  Expression,
  Kysely,
  KyselyPlugin,
  RawBuilder,
  Transaction,
} from 'kysely';
import type { ColumnType } from '../../config/stream-definition.js';
import type { ColumnValue } from './columns/column-values.js';
import type { StoreDatabase } from './database.js';
import type { HistorySql } from './history-dialect.js';
import type { MappedRow } from './row-mapping.js';
import type { DeleteReason, ReceivedRecords, UpsertCounts } from './store-types.js';
import type { StreamTable } from './stream-tables.js';

/** Rows of one scope (null for unscoped tables), mapped and deduplicated by key. */
interface ScopeRows {
  readonly scope: string | null;
  readonly rows: readonly MappedRow[];
}

/** What one upsert statement writes: a page (one group) or a batch of child scopes (one group each). */
export interface PageUpsertInput {
  readonly groups: readonly ScopeRows[];
  /** ISO 8601; becomes `synced_at` of every row written. */
  readonly syncedAt: string;
  /** Null for live records; set (with `deletedReason: 'upstream'`) for a `status=deleted` listing. */
  readonly deletedAt: string | null;
  readonly deletedReason: DeleteReason | null;
  /** The run writing: a table in history mode records it on the rows it inserts. @default null */
  readonly runId?: number | null;
  /**
   * With one group: the answer its rows were parsed from, each row's record the item at its
   * `position` (WritePageInput.received), and how many records were parsed. @default undefined
   */
  readonly received?: (ReceivedRecords & { readonly count: number }) | undefined;
}

/**
 * Prepares one page's upsert (values bound, JSON encoded) at once, and returns the step that runs
 * it inside the caller's transaction, so the preparing can happen while an earlier page is still
 * being written. The guards live in the SQL.
 */
export type PageUpsert = (page: PageUpsertInput) => PreparedUpsert;

/** A prepared upsert, run inside the caller's transaction; a dialect may carry more on it for its `commitPageWork`. */
export type PreparedUpsert = (trx: Transaction<StoreDatabase>) => Promise<UpsertCounts>;

/** A column type as Kysely's schema builder takes it. */
export type DataTypeExpression = Parameters<CreateTableBuilder<string>['addColumn']>[1];

/** The statements putting parent ids into `child_queue` for each child stream (per page: hot). */
export type EnqueueParentsQueries = (
  children: readonly string[],
  parentIds: readonly string[],
  queuedAt: string,
) => CompiledQuery[];

/** One page's transaction, as the dialect runs it, in this order (write-page.ts). */
export interface PageWork {
  /** New columns first: the claim must answer a row (else refused `schema`), then the DDL. */
  readonly growth?:
    | { readonly claim: CompiledQuery; readonly statements: readonly CompiledQuery[] }
    | undefined;
  /** Before the upsert: the run context of a table with history (history-dialect.ts). */
  readonly before: readonly CompiledQuery[];
  readonly upsert: PreparedUpsert;
  /** The rows the upsert writes: none, the page may be its transition alone (a state-only commit). */
  readonly rows: number;
  readonly statements: readonly CompiledQuery[];
  /** Must answer a row: the table is still at the columns the rows were mapped with (else `schema`). */
  readonly check?: CompiledQuery | undefined;
  /** The state's compare-and-set: when it answers no row, everything is rolled back (`state`). */
  readonly transition?: CompiledQuery | undefined;
  /** Roll back even when everything succeeded (a dry run's preview). */
  readonly rollback: boolean;
  /**
   * Where `runsPageWorkInOrder`: this page's number, and the page that must have committed before
   * it on this connection (else `early`, nothing begun). @default undefined
   */
  readonly order?: { readonly page: number; readonly after: number | undefined } | undefined;
}

/**
 * Why a page's transaction was rolled back without an error: the state or the table's columns
 * moved, or (`early`) the page it was sent behind has not committed.
 */
type Refusal = 'state' | 'schema' | 'early';

export type PageWorkResult =
  | { readonly refused: false; readonly counts: UpsertCounts; readonly transitionRow: unknown }
  | { readonly refused: Refusal };

/** How each database spells the store's column types. */
export interface SqlTypes {
  readonly json: DataTypeExpression;
  readonly timestamp: DataTypeExpression;
  readonly bigint: DataTypeExpression;
  /** The auto-numbered primary key of `sync_runs` and `rejected_records`. */
  readonly serialId: {
    readonly type: DataTypeExpression;
    readonly build: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
  };
  readonly typed: Readonly<Record<ColumnType, DataTypeExpression>>;
  /**
   * A view's `select *` stands for the columns its table had when the view was defined
   * (PostgreSQL), not for those it has when read (SQLite): the live views are then defined again
   * whenever a column is added (live-view.ts).
   */
  readonly viewsFixColumns: boolean;
  /** SQL of a column default that is the current time, in the form `timestamp` columns hold. */
  readonly currentTimestamp: string;
  /** A typed column value as the driver binds it (SQLite has no booleans). */
  encode(value: ColumnValue): unknown;
  /** A JSON column as read back (text in SQLite, already parsed from JSONB by pg). */
  decodeJson(value: unknown): unknown;
  /**
   * The strings of a JSON array bound as one parameter, as a subquery (`x in <it>`): a few thousand
   * values in one statement, where `loadIdSet` takes any number in a transaction of its own.
   */
  jsonTexts(json: string): RawBuilder<unknown>;
  /**
   * Where the database computes them: the key-like values at a dotted path of a JSON column, as a
   * JSON array (`valuesAtPath`), so a read of the ids a stream references sends back ids, not records.
   * @default undefined (the records are read and the values found here)
   */
  readonly valuesAt?: ((json: Expression<unknown>, path: string) => RawBuilder<unknown>) | undefined;
  /**
   * Where `valuesAt` is not: a JSON object column with only its member `key` (a record stored as
   * its text, `storedData`, whole), so a read of the values at a path sends back the member the
   * path starts with (a task's `goods`), not the whole records. @default undefined (read whole)
   */
  readonly onlyMember?: ((json: Expression<unknown>, key: string) => RawBuilder<unknown>) | undefined;
}

/**
 * The temporary table `loadIdSet` fills: text columns `scope` and `value`, unique together,
 * visible to the transaction only. A plain value has the scope `''`.
 */
export const idSetTable = 'store_id_set';

/** A value, or a value within a scope (the ids seen per parent of a child batch). */
export type IdSetEntry = string | readonly [scope: string, value: string];

/** The (scope, value) pair of an entry. */
export function idSetPair(entry: IdSetEntry): readonly [string, string] {
  return typeof entry === 'string' ? ['', entry] : entry;
}

/**
 * The seam between the shared store and one database: everything else is written once against
 * Kysely. Both folders (`sqlite/`, `postgres/`) implement it with the same file set.
 */
export interface StoreDialect {
  readonly name: 'sqlite' | 'postgres';
  readonly db: Kysely<StoreDatabase>;
  /** PostgreSQL: the schema that holds the whole store (its connections' search_path); made by the migrations. */
  readonly schema?: string | undefined;
  /** PostgreSQL: the database's URL with its password redacted, a key equal for the stores of one database. */
  readonly database?: string | undefined;
  readonly types: SqlTypes;
  /** The hot path: built once per table, its SQL prepared or cached once. */
  createPageUpsert(table: StreamTable): PageUpsert;
  enqueueParentsQueries: EnqueueParentsQueries;
  /** Runs a page's transaction (write-page.ts); the SQLite dialect runs it whole on its thread. */
  commitPageWork(work: PageWork): Promise<PageWorkResult>;
  /**
   * Page work runs in the order it is sent, each page whole (SQLite: one connection, one queue on
   * its thread), so a page may be sent before the page before it commits (write-page.ts). With a
   * pool of connections (PostgreSQL) the pages would run side by side: they are sent in turn.
   */
  readonly runsPageWorkInOrder: boolean;
  /**
   * A keyed read outside a transaction costs no round trip (SQLite: the calling thread's own
   * connection), so a run reads its state there and writes its `sync_runs` row only when it first
   * writes, or whole at its end (partition-run.ts). PostgreSQL reads the state in the statement that
   * records the run's start: one round trip either way.
   */
  readonly readsLocally: boolean;
  /** Fills `idSetTable` with the entries (any number: a million is fine), replacing its content. */
  loadIdSet(trx: Transaction<StoreDatabase>, entries: Iterable<IdSetEntry>): Promise<void>;
  /** History mode's triggers, view and run context (docs/history.md). */
  readonly history: HistorySql;
  /** The statements defining the triggers that keep `partition_runs` (partition-runs-migration.ts), and dropping them. */
  readonly partitionRuns: PartitionRunsSql;
}

/** A dialect's triggers keeping `partition_runs`: the statements creating them, and dropping them. */
export interface PartitionRunsSql {
  readonly create: readonly string[];
  readonly drop: readonly string[];
}

/** The store's Kysely with the caller's plugins (`OpenStoreOptions.plugins`: a test counting statements). */
export function withPlugins(
  db: Kysely<StoreDatabase>,
  plugins: readonly KyselyPlugin[] | undefined,
): Kysely<StoreDatabase> {
  let plugged = db;
  for (const plugin of plugins ?? []) plugged = plugged.withPlugin(plugin);
  return plugged;
}
