import type { ScopeColumn, StreamDefinition } from '../../config/stream-definition.js';
import { withCentsColumns } from './columns/cents-columns.js';
import { sharedColumn, type TypedColumn } from './columns/typed-column.js';
import { isKeyName } from './columns/value-kind.js';
import { historyColumns, historyViewName, versionsTableName } from './history-names.js';
import { liveViewName } from './live-view.js';
import { CatalogueError } from './store-errors.js';

export type { TypedColumn } from './columns/typed-column.js';

/**
 * A stream table at one version of its typed columns. The fixed columns and the scope come from
 * the catalogue; the typed columns are the catalogue's (spec) plus those inferred from the data,
 * read from `stream_columns` (schema/schema-registry.ts).
 */
export interface StreamTable {
  /** Table name = stream name (docs/store.md). */
  readonly name: string;
  /** Part of the primary key with `id`; null for unscoped streams. */
  readonly scopeColumn: ScopeColumn | null;
  readonly columns: readonly TypedColumn[];
  /** `stream_schemas.version` of these columns (0 before the store read them). */
  readonly version: number;
  /** Record fields with columns of their own (the key field, the sequence field): never inferred. */
  readonly excluded: readonly (readonly string[])[];
  /**
   * The record field whose value is every row's `id` (`key: { field }`, one step, no position
   * fallback); null when a row's id may come from elsewhere.
   */
  readonly keyField: string | null;
  /** The stream a child stream's scopes are parents of; null for other streams. */
  readonly parent: string | null;
  /** The child streams refreshed per changed record of this one. */
  readonly children: readonly string[];
  /** The record paths other streams fetch by the ids found at (`idsFrom`: the goods of the tasks). */
  readonly referencedPaths: readonly string[];
  /** When history mode was switched on (ISO 8601, `stream_schemas.history_since`); null: off (docs/history.md). */
  readonly history: string | null;
}

/** A stream catalogue: stream name -> definition (config/streams.ts is the default one). */
export type Catalogue = Readonly<Record<string, StreamDefinition>>;

/** Columns every stream table has; typed columns never take these names. */
const fixedColumns = ['id', 'data', 'sequence', 'synced_at', 'deleted_at', 'deleted_reason'] as const;
const bookkeepingTables = new Set([
  'sync_state',
  'sync_runs',
  'rejected_records',
  'child_queue',
  'child_refresh',
  'stream_columns',
  'stream_schemas',
  'held_deletes',
  'kysely_migration',
]);
const identifier = /^[a-z_][a-z0-9_]{0,62}$/;

/** Which column scopes a stream's rows: the operator, the parent record, or none. */
export function scopeColumnOf(definition: StreamDefinition): ScopeColumn | null {
  if (definition.strategy === 'child') return definition.scopeColumn;
  if (definition.strategy === 'window') return 'operator_id';
  if (definition.strategy === 'snapshot' && definition.scope === 'operator') return 'operator_id';
  return null;
}

/** Names a typed column of the table may not take. */
export function reservedNames(table: Pick<StreamTable, 'scopeColumn'>): string[] {
  const fixed = [...fixedColumns, ...historyColumns];
  return table.scopeColumn ? [...fixed, table.scopeColumn] : fixed;
}

/**
 * Derives every stream table from the catalogue with its spec columns (version 0; a number column
 * with its `_cents` companion), checking names once so SQL can quote them safely. `sequenceField` is excluded from inference: it fills `sequence`.
 */
export function streamTables(
  catalogue: Catalogue,
  sequenceField = 'sequence',
): ReadonlyMap<string, StreamTable> {
  const tables = new Map<string, StreamTable>();
  for (const [name, definition] of Object.entries(catalogue)) {
    checkIdentifier(name, `stream ${name}`);
    if (bookkeepingTables.has(name))
      throw new CatalogueError(`stream ${name} collides with a bookkeeping table`);
    checkIdentifier(liveViewName(name), `stream ${name}'s live view`);
    if (liveViewName(name) in catalogue)
      throw new CatalogueError(`stream ${liveViewName(name)} collides with the live view of ${name}`);
    for (const other of [historyViewName(name), versionsTableName(name)]) {
      if (other in catalogue)
        throw new CatalogueError(`stream ${other} collides with the history of ${name}`);
    }
    const scopeColumn = scopeColumnOf(definition);
    const reserved = new Set(reservedNames({ scopeColumn }));
    const specColumns = Object.entries(definition.columns).map(([column, { type, path }]): TypedColumn => {
      checkIdentifier(column, `column ${name}.${column}`);
      if (reserved.has(column))
        throw new CatalogueError(`column ${name}.${column} collides with a fixed column`);
      const field = path.split('.').at(-1)!;
      if (isKeyName(field) && type !== 'text')
        throw new CatalogueError(
          `column ${name}.${column}: '${field}' names a key, and keys are text: a ${type} column would not join them`,
        );
      return sharedColumn({ name: column, type, path: path.split('.'), origin: 'spec' as const });
    });
    const columns = withCentsColumns(specColumns, reserved);
    const keyPath = 'field' in definition.key ? [definition.key.field.split('.')] : [];
    const keyField =
      'field' in definition.key && !definition.key.orPosition && !definition.key.field.includes('.')
        ? definition.key.field
        : null;
    const parent = definition.strategy === 'child' ? definition.parent : null;
    const children = Object.entries(catalogue)
      .filter(([, other]) => other.strategy === 'child' && other.parent === name)
      .map(([child]) => child);
    const referencedPaths = [
      ...new Set(
        Object.values(catalogue).flatMap((other) =>
          'idsFrom' in other && other.idsFrom?.stream === name ? [other.idsFrom.path] : [],
        ),
      ),
    ];
    tables.set(
      name,
      Object.freeze({
        name,
        scopeColumn,
        columns,
        version: 0,
        excluded: [...keyPath, [sequenceField]],
        keyField,
        parent,
        children,
        referencedPaths,
        history: null,
      }),
    );
  }
  return tables;
}

function checkIdentifier(name: string, what: string): void {
  if (!identifier.test(name)) throw new CatalogueError(`${what}: not a lower-case SQL identifier`);
}
