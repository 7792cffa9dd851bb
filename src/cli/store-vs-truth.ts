import { isDeepStrictEqual } from 'node:util';
import type { StreamDefinition } from '../../config/stream-definition.js';
import { streams } from '../../config/streams.js';
import type { StreamTruth } from '../sim/stream-truth.js';
import type { Store, StoredRow } from '../store/store.js';
import { keyReader } from '../sync/record-keys.js';

const catalogue: Readonly<Record<string, StreamDefinition>> = streams;

/**
 * Every difference between the store and the simulator's truth, as readable lines (empty when they
 * agree): a live row for each record that exists, equal to it; soft-deleted ones marked `upstream`;
 * every other row marked deleted.
 */
export async function differencesFromTruth(
  store: Store,
  truth: StreamTruth,
  only?: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  for (const [stream, scopes] of Object.entries(truth)) {
    if (only && !only.includes(stream)) continue;
    const definition = catalogue[stream];
    if (!definition) continue;
    const rows = await store.readRows(stream);
    out.push(...compareStream(stream, definition, scopes, rows));
  }
  return out;
}

function compareStream(
  stream: string,
  definition: StreamDefinition,
  scopes: StreamTruth[string],
  rows: readonly StoredRow[],
): string[] {
  const keyOf = keyReader(definition.key);
  const out: string[] = [];
  const rowKey = (scope: string | null, id: string) => `${scope ?? ''}\u0000${id}`;
  const byKey = new Map(rows.map((row) => [rowKey(row.scope, row.id), row]));
  const expected = new Set<string>();
  for (const [scope, { records, deletedIds }] of Object.entries(scopes)) {
    const scopeValue = scope === '' ? null : scope;
    const unkeyed: unknown[] = [];
    for (const record of records) {
      const id = keyOf(record);
      if (id === null) {
        unkeyed.push(record);
        continue;
      }
      const key = rowKey(scopeValue, id);
      expected.add(key);
      const row = byKey.get(key);
      if (!row) out.push(`${stream} ${scope}/${id}: missing from the store`);
      else if (row.deletedAt !== null)
        out.push(`${stream} ${scope}/${id}: marked deleted (${row.deletedReason}) but exists`);
      else if (!isDeepStrictEqual(row.data, record))
        out.push(`${stream} ${scope}/${id}: data differs: ${firstDifference(row.data, record)}`);
    }
    out.push(
      ...matchByContent(stream, scope, unkeyed, rows, (row) => row.scope === scopeValue, expected, rowKey),
    );
    for (const id of deletedIds) {
      const key = rowKey(scopeValue, id);
      expected.add(key);
      const row = byKey.get(key);
      if (row && row.deletedReason !== 'upstream')
        out.push(`${stream} ${scope}/${id}: soft-deleted upstream, stored as ${row.deletedReason ?? 'live'}`);
    }
  }
  for (const [key, row] of byKey) {
    if (!expected.has(key) && row.deletedAt === null)
      out.push(`${stream} ${row.scope ?? ''}/${row.id}: live in the store, gone upstream`);
  }
  return out;
}

/**
 * Records without a key field (keyed by their position or by the request, docs/records.md) are
 * found by content among the scope's live rows not matched by key.
 */
function matchByContent(
  stream: string,
  scope: string,
  records: readonly unknown[],
  rows: readonly StoredRow[],
  inScope: (row: StoredRow) => boolean,
  expected: Set<string>,
  rowKey: (scope: string | null, id: string) => string,
): string[] {
  const out: string[] = [];
  const candidates = rows.filter(
    (row) => inScope(row) && row.deletedAt === null && !expected.has(rowKey(row.scope, row.id)),
  );
  for (const record of records) {
    const index = candidates.findIndex((row) => isDeepStrictEqual(row.data, record));
    if (index < 0) {
      out.push(`${stream} ${scope}/(no key): missing from the store: ${JSON.stringify(record).slice(0, 80)}`);
      continue;
    }
    const [row] = candidates.splice(index, 1);
    expected.add(rowKey(row!.scope, row!.id));
  }
  return out;
}

/** The first path where two JSON values differ, for a readable failure. */
function firstDifference(stored: unknown, expected: unknown, path = ''): string {
  if (stored !== null && expected !== null && typeof stored === 'object' && typeof expected === 'object') {
    const keys = new Set([...Object.keys(stored), ...Object.keys(expected)]);
    for (const key of keys) {
      const a = (stored as Record<string, unknown>)[key];
      const b = (expected as Record<string, unknown>)[key];
      if (!isDeepStrictEqual(a, b)) return firstDifference(a, b, `${path}/${key}`);
    }
  }
  return `${path || '/'} stored ${JSON.stringify(stored)?.slice(0, 80)}, upstream ${JSON.stringify(expected)?.slice(0, 80)}`;
}
