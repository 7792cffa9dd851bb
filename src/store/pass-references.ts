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
  /** The ids at `path` of the scope's live rows as remembered at that version (a new array); undefined when not known. */
  recall(stream: string, scope: string | undefined, path: string, version: number): string[] | undefined;
  /** Whether anything is remembered of the scope (worth reading the state's version for). */
  knows(stream: string, scope: string | undefined): boolean;
}

/** Where a pass was, and at which version of its partition's state. */
export interface PassAt {
  readonly scope: string | undefined;
  readonly version: number;
}

/**
 * The ids at each referenced path of a pass's records (`referencesOf`), each path's as one text
 * (`idsText`): the states of thousands of partitions decode one string a path, not one per id
 * (an idle cycle at 2,000 operators held 165,000 such strings, ~5 MB, then ~1 MB as texts).
 */
export type PassIds = Readonly<Record<string, string>>;

/**
 * The ids at every path other streams fetch by, of records that are a scope's live rows; undefined
 * when no stream fetches by this one's, past `maxPassIds` ids in all, or when an id cannot be
 * kept as text (it holds the separator): those ids are then read from the rows.
 */
export function referencesOf(table: StreamTable, records: readonly StoreRecord[]): PassIds | undefined {
  if (table.referencedPaths.length === 0) return undefined;
  const ids: Record<string, string> = {};
  let count = 0;
  for (const path of table.referencedPaths) {
    const found = idsAt(table, path, records);
    const text = idsText(found);
    if (text === undefined) return undefined;
    ids[path] = text;
    count += found.length;
  }
  return count <= maxPassIds ? ids : undefined;
}

/**
 * The references a partition's state holds, as `PassIds`: texts, or the arrays of ids states
 * written before kept; undefined for anything else.
 */
export function passIdsOf(value: unknown): PassIds | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const ids: Record<string, string> = {};
  for (const [path, found] of Object.entries(value)) {
    const text =
      typeof found === 'string'
        ? found
        : Array.isArray(found) && found.every((id) => typeof id === 'string')
          ? idsText(found)
          : undefined;
    if (text === undefined) return undefined;
    ids[path] = text;
  }
  return ids;
}

/** Ids kept in a partition's state at most: its state is read by every run of the partition. */
const maxPassIds = 5_000;

/** Between two ids of a text: never in an id kept (`idsText` refuses one that holds it). */
const separator = '\n';

/**
 * The ids as one text, in their order; undefined when one holds the separator, or for one empty id
 * alone (its text, the empty one, reads back as no ids).
 */
export function idsText(ids: readonly string[]): string | undefined {
  if (ids.length === 1 && ids[0] === '') return undefined;
  return ids.some((id) => id.includes(separator)) ? undefined : ids.join(separator);
}

/** The ids of a text `idsText` made, in their order (none for the empty text). */
export function idsOfText(text: string): string[] {
  return text === '' ? [] : text.split(separator);
}

interface Remembered {
  readonly version: number;
  readonly byPath: ReadonlyMap<string, string>;
}

export function createPassReferences(): PassReferences {
  const remembered = new Map<string, Remembered>();
  const keyOf = (stream: string, scope: string | undefined) => `${stream}\u0000${scope ?? ''}`;
  return {
    remember(table, at, records) {
      if (table.referencedPaths.length === 0) return;
      const byPath = new Map<string, string>();
      for (const path of table.referencedPaths) {
        const text = idsText(idsAt(table, path, records));
        if (text === undefined) return;
        byPath.set(path, text);
      }
      remembered.set(keyOf(table.name, at.scope), { version: at.version, byPath });
    },
    rememberIds(table, at, ids) {
      if (table.referencedPaths.length === 0) return;
      const byPath = new Map<string, string>();
      for (const path of table.referencedPaths) {
        const text = ids[path];
        if (typeof text !== 'string') return;
        byPath.set(path, text);
      }
      remembered.set(keyOf(table.name, at.scope), { version: at.version, byPath });
    },
    recall(stream, scope, path, version) {
      const found = remembered.get(keyOf(stream, scope));
      const text = found?.version === version ? found.byPath.get(path) : undefined;
      return text === undefined ? undefined : idsOfText(text);
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
