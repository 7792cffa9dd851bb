import type { CompiledQuery } from 'kysely';
import { growColumns } from './columns/grow-columns.js';
import { emptyObservations, type PageObservations } from './columns/page-observations.js';
import type { MappedRow } from './row-mapping.js';
import {
  driftStatements,
  growthStatements,
  refusedFieldsStatement,
  type SchemaGrowth,
  schemaCheck,
} from './schema/schema-statements.js';
import type { StoreContext } from './store-context.js';
import type { StoreRecord } from './store-types.js';
import { reservedNames, type StreamTable } from './stream-tables.js';

/** One scope's records (null scope for unscoped streams). */
interface ScopeRecords {
  readonly scope: string | null;
  readonly records: readonly StoreRecord[];
}

/** A write's rows mapped to its table's columns, with what the transaction must also do for them. */
export interface PreparedRows {
  /** The table version the rows were mapped with. */
  readonly table: StreamTable;
  readonly groups: ReadonlyArray<{ readonly scope: string | null; readonly rows: readonly MappedRow[] }>;
  /** When the records held new fields: the columns to add first (a claim on the version, then DDL). */
  readonly growth: SchemaGrowth | undefined;
  /** Present when the write does not grow the table: it must still be at `table.version` at commit. */
  readonly check: CompiledQuery | undefined;
  /** Drift counts of the columns. */
  readonly statements: readonly CompiledQuery[];
  /** Values that did not fit their column (stored as NULL). */
  readonly drift: number;
  /** Resolves once the columns the write builds on are committed (another write may be adding them). */
  ready(): Promise<void>;
  /** Reports the end of a growing write to the registry (no-op otherwise). */
  settle(committed: boolean): Promise<void>;
}

/**
 * Maps records to rows with the table's current columns; when they hold fields that have no column
 * yet, grows the table (columns/grow-columns.ts) and maps them again, so every row of the write
 * carries every column (docs/store.md, "Typed columns").
 */
export function prepareRows(
  context: StoreContext,
  stream: string,
  parts: readonly ScopeRecords[],
  now: Date,
): PreparedRows {
  const base = context.table(stream);
  const first = mapAll(context, base, parts);
  if (first.observations.unknown.size === 0) return prepared(context, base, first, now);
  const grown = growColumns(base.columns, first.observations, reservedNames(base));
  const { db } = context.dialect;
  const refused = grown.refused > 0 ? [refusedFieldsStatement(db, stream, grown.refused)] : [];
  if (grown.added.length === 0) {
    const plain = prepared(context, base, first, now);
    return { ...plain, statements: [...plain.statements, ...refused] };
  }
  const growing = context.schemas.grow(base, grown.added);
  const again = prepared(context, growing.table, mapAll(context, growing.table, parts), now);
  return {
    ...again,
    statements: [...again.statements, ...refused],
    growth: growthStatements(db, context.dialect, base, growing.table, now),
    check: undefined,
    ready: () => context.schemas.ready(base),
    settle: growing.settle,
  };
}

function mapAll(context: StoreContext, table: StreamTable, parts: readonly ScopeRecords[]) {
  const observations = emptyObservations();
  const mapper = context.mapper(table);
  const groups = parts.map((part) => ({ scope: part.scope, rows: mapper(part.records, observations) }));
  return { groups, observations };
}

function prepared(
  context: StoreContext,
  table: StreamTable,
  mapped: { groups: PreparedRows['groups']; observations: PageObservations },
  now: Date,
): PreparedRows {
  const { db } = context.dialect;
  let drift = 0;
  for (const { count } of mapped.observations.drift.values()) drift += count;
  return {
    table,
    groups: mapped.groups,
    growth: undefined,
    check: schemaCheck(db, table),
    statements: driftStatements(db, table, mapped.observations.drift, now),
    drift,
    ready: () => context.schemas.ready(table),
    settle: async () => undefined,
  };
}
