import type { ColumnType, ScopeColumn, StreamDefinition } from '../../config/stream-definition.js';
import { CatalogueError } from './errors.js';

/** A typed column of a stream table, copied out of the record at `path`. */
export interface TypedColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly path: string;
}

/** What the store needs of a stream definition: its table's shape and where the key is. */
export interface StreamTable {
  /** Table name = stream name (PRODUCT.md section 5). */
  readonly name: string;
  /** Dotted path of the record's key. */
  readonly key: string;
  /** Part of the primary key with `id`; null for unscoped streams. */
  readonly scopeColumn: ScopeColumn | null;
  readonly columns: readonly TypedColumn[];
}

/** A stream catalogue: stream name -> definition (config/streams.ts is the default one). */
export type Catalogue = Readonly<Record<string, StreamDefinition>>;

const fixedColumns = new Set(['id', 'data', 'sequence', 'synced_at', 'deleted_at', 'deleted_reason']);
const bookkeepingTables = new Set(['sync_state', 'sync_runs', 'rejected_records', 'kysely_migration']);
const identifier = /^[a-z_][a-z0-9_]{0,62}$/;

/** Which column scopes a stream's rows: the operator, the parent record, or none. */
export function scopeColumnOf(definition: StreamDefinition): ScopeColumn | null {
  if (definition.strategy === 'child') return definition.scopeColumn;
  if (definition.strategy === 'window') return 'operator_id';
  if (definition.strategy === 'snapshot' && definition.scope === 'operator') return 'operator_id';
  return null;
}

/** Derives every stream table from the catalogue, checking names once so SQL can quote them safely. */
export function streamTables(catalogue: Catalogue): ReadonlyMap<string, StreamTable> {
  const tables = new Map<string, StreamTable>();
  for (const [name, definition] of Object.entries(catalogue)) {
    checkIdentifier(name, `stream ${name}`);
    if (bookkeepingTables.has(name))
      throw new CatalogueError(`stream ${name} collides with a bookkeeping table`);
    const scopeColumn = scopeColumnOf(definition);
    const columns = Object.entries(definition.columns).map(([column, { type, path }]) => {
      checkIdentifier(column, `column ${name}.${column}`);
      if (fixedColumns.has(column) || column === scopeColumn) {
        throw new CatalogueError(`column ${name}.${column} collides with a fixed column`);
      }
      return { name: column, type, path };
    });
    tables.set(
      name,
      Object.freeze({ name, key: definition.key, scopeColumn, columns: Object.freeze(columns) }),
    );
  }
  return tables;
}

function checkIdentifier(name: string, what: string): void {
  if (!identifier.test(name)) throw new CatalogueError(`${what}: not a lower-case SQL identifier`);
}
