import { jsonTypeOf } from '../../../schemas/json-object.js';
import { processTable } from '../process-table.js';
import { columnConverters, misfit } from './column-values.js';
import type { PageObservations, RecordWalker } from './page-observations.js';
import type { TypedColumn } from './typed-column.js';
import { kindOf } from './value-kind.js';
import { compileWalker, type PathNode, type WalkerParts } from './walker-source.js';

/** Nested objects are flattened this many levels down; deeper values stay in `data` only. */
export const maxFlattenDepth = 6;

/**
 * Builds the walker of a column set. One pass over each record's properties, whose cost is the
 * record's size, not columns x depth: known paths are converted, values that do not fit are NULL
 * and counted as drift, objects are descended, arrays are left to `data`, and scalar fields with no
 * column are collected for the schema to grow (docs/store.md, "Typed columns").
 *
 * The column paths form a trie, compiled once per column set into one function per object level
 * (walker-source.ts): a `switch` on the property name reaches the usual cases (a scalar for one
 * column, an object to descend) without a lookup per property, which took 40% off the mapping.
 * Every other case goes through `visit`, the one definition of what a property means.
 */
export function createRecordWalker(
  columns: readonly TypedColumn[],
  excludedPaths: readonly (readonly string[])[],
): RecordWalker {
  // The stores of many connections map the same tables with the same columns: one walker (its
  // trie and compiled levels) serves them all. A walker keeps no state between records.
  const key = JSON.stringify([columns.map((column) => [column.path, column.type]), excludedPaths]);
  return walkers(key, () => buildRecordWalker(columns, excludedPaths));
}

/** The walkers built in this process, by their columns' paths and types. */
const walkers = processTable<RecordWalker>(1000);

function buildRecordWalker(
  columns: readonly TypedColumn[],
  excludedPaths: readonly (readonly string[])[],
): RecordWalker {
  const root: PathNode = {};
  columns.forEach((column, index) => {
    const node = nodeAt(root, column.path);
    node.columns ??= [];
    node.columns.push({ index, convert: columnConverters[column.type] });
  });
  for (const path of excludedPaths) nodeAt(root, path).excluded = true;
  return compileWalker(root, columns.length, { visit, noteDrift, misfit, maxDepth: maxFlattenDepth });
}

/** What one property of an object at `node` (reached by `path`) gives: column values, drift, unknown fields. */
const visit: WalkerParts['visit'] = (node, path, key, value, values, observations) => {
  if (value === null || value === undefined) return;
  const child = node?.children?.get(key);
  if (child?.excluded) return;
  if (typeof value === 'object') {
    if (child?.columns) for (const { index } of child.columns) noteDrift(observations, index, value);
    if (Array.isArray(value) || path.length + 1 >= maxFlattenDepth) return;
    path.push(key);
    for (const inner in value)
      visit(child, path, inner, (value as Record<string, unknown>)[inner], values, observations);
    path.pop();
  } else if (child?.columns) {
    for (const { index, convert } of child.columns) {
      const converted = convert(value);
      if (converted === misfit) noteDrift(observations, index, value);
      else values[index] = converted;
    }
  } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    noteUnknown(observations, [...path, key], value);
  }
};

function noteDrift(observations: PageObservations, column: number, value: unknown): void {
  const seen = observations.drift.get(column);
  if (seen) seen.count += 1;
  else observations.drift.set(column, { count: 1, sample: describe(value) });
}

function noteUnknown(observations: PageObservations, path: string[], value: string | number | boolean) {
  const key = path.join('\u001f');
  const seen = observations.unknown.get(key);
  if (seen) seen.kinds.add(kindOf(value));
  else observations.unknown.set(key, { path, kinds: new Set([kindOf(value)]) });
}

/** A short description of a value that did not fit: its JSON type and its start. */
function describe(value: unknown): string {
  const text = shortJson(value);
  return `${jsonTypeOf(value)} ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

/** The value's JSON text; a value nested too deep to serialize is described, never thrown. */
function shortJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch (error) {
    if (error instanceof RangeError) return '(nested too deep to show)';
    throw error;
  }
}

function nodeAt(root: PathNode, path: readonly string[]): PathNode {
  let node = root;
  for (const step of path) {
    node.children ??= new Map();
    let next = node.children.get(step);
    if (!next) {
      next = {};
      node.children.set(step, next);
    }
    node = next;
  }
  return node;
}
