import type { StoreRecord } from './store-types.js';
import type { StreamTable } from './stream-tables.js';
import { valuesAtPath } from './values-at-path.js';

/**
 * The ids other streams fetch by (`referencedPaths`: the goods of the operator's tasks), taken from
 * a snapshot pass that found its scope unchanged: its records are then exactly the scope's live
 * rows, so the ids need no query parsing every stored record on the SQLite thread (1,500 such a
 * cycle at 500 operators). Each set is kept with the partition's state version it was taken at
 * and used only while the state is still at that version: any write of the partition moves it,
 * in this process or another.
 */
export interface PassReferences {
  remember(table: StreamTable, at: PassAt, records: readonly StoreRecord[]): void;
  /** As `remember`, with the ids already taken (`referencesOf`), e.g. kept in the partition's state. */
  rememberIds(table: StreamTable, at: PassAt, ids: PassIds): void;
  /** The ids at `path` of the scope's live rows as remembered at that version; undefined when not known. */
  recall(
    stream: string,
    scope: string | undefined,
    path: string,
    version: number,
  ): readonly string[] | undefined;
  /** Whether anything is remembered of the scope (worth reading the state's version for). */
  knows(stream: string, scope: string | undefined): boolean;
}

/** Where a pass was, and at which version of its partition's state. */
export interface PassAt {
  readonly scope: string | undefined;
  readonly version: number;
}

/** The ids at each referenced path of a pass's records (`referencesOf`). */
export type PassIds = Readonly<Record<string, readonly string[]>>;

/**
 * The ids at every path other streams fetch by, of records that are a scope's live rows; undefined
 * when no stream fetches by this one's, or past `maxPassIds` ids in all.
 */
export function referencesOf(table: StreamTable, records: readonly StoreRecord[]): PassIds | undefined {
  if (table.referencedPaths.length === 0) return undefined;
  const ids: Record<string, readonly string[]> = {};
  let count = 0;
  for (const path of table.referencedPaths) {
    ids[path] = idsAt(table, path, records);
    count += ids[path].length;
  }
  return count <= maxPassIds ? ids : undefined;
}

/** Ids kept in a partition's state at most: its state is read by every run of the partition. */
const maxPassIds = 5_000;

interface Remembered {
  readonly version: number;
  readonly byPath: ReadonlyMap<string, readonly string[]>;
}

export function createPassReferences(): PassReferences {
  const remembered = new Map<string, Remembered>();
  const keyOf = (stream: string, scope: string | undefined) => `${stream}\u0000${scope ?? ''}`;
  return {
    remember(table, at, records) {
      if (table.referencedPaths.length === 0) return;
      const byPath = new Map<string, readonly string[]>();
      for (const path of table.referencedPaths) byPath.set(path, idsAt(table, path, records));
      remembered.set(keyOf(table.name, at.scope), { version: at.version, byPath });
    },
    rememberIds(table, at, ids) {
      if (table.referencedPaths.length === 0) return;
      const byPath = new Map<string, readonly string[]>();
      for (const path of table.referencedPaths) {
        const found = ids[path];
        if (!Array.isArray(found)) return;
        byPath.set(path, found);
      }
      remembered.set(keyOf(table.name, at.scope), { version: at.version, byPath });
    },
    recall(stream, scope, path, version) {
      const found = remembered.get(keyOf(stream, scope));
      return found?.version === version ? found.byPath.get(path) : undefined;
    },
    knows: (stream, scope) => remembered.has(keyOf(stream, scope)),
  };
}

/** As `referencedIds` reads them from the rows: distinct, sorted; at the key field, the rows' ids. */
function idsAt(table: StreamTable, path: string, records: readonly StoreRecord[]): string[] {
  const ids = new Set<string>();
  if (path === table.keyField) for (const record of records) ids.add(record.key);
  else {
    const read = valuesAtPath(path);
    for (const record of records) for (const id of read(record.data)) ids.add(id);
  }
  return [...ids].sort();
}
