import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ColumnType } from '../../config/stream-definition.js';
import { type ColumnValue, columnConverters, misfit } from '../../src/store/columns/column-values.js';
import { emptyObservations } from '../../src/store/columns/page-observations.js';
import { createRecordWalker, maxFlattenDepth } from '../../src/store/columns/record-walk.js';
import { sharedColumn, type TypedColumn } from '../../src/store/columns/typed-column.js';
import { toColumn } from '../../src/store/schema/schema-registry.js';

/** Property names that are awkward as code or as object keys: the walker compiles names into a switch. */
const names = fc.constantFrom(
  'a',
  'b',
  'id',
  'sequence',
  '__proto__',
  'constructor',
  'toString',
  '',
  '"',
  "'",
  '\\',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a name that would be code inside a template literal
  '${x}',
  '\u2028',
  '*/ throw 1; /*',
  '"); process.exit(1); ("',
);
const types = fc.constantFrom<ColumnType>(
  'text',
  'integer',
  'bigint',
  'real',
  'number',
  'boolean',
  'timestamp',
  'date',
);
const scalar = fc.oneof(
  fc.string(),
  fc.constantFrom('12.50', '2026-02-28', '2026-02-30', '2026-11-24T10:00:00.000Z', '2026-11-24 10:00+02'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 2 }),
    fc.dictionary(names, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const path = fc.array(names, { minLength: 1, maxLength: maxFlattenDepth + 1 });
const column = fc.record({ path, type: types });
/**
 * Records as a TMS sends them (parsed JSON, so `__proto__` is an own property like any other), with
 * values planted at the columns' paths and around them, so that deep paths are reached.
 */
const records = (paths: readonly (readonly string[])[]) =>
  fc
    .array(
      fc.tuple(
        fc.dictionary(names, value, { maxKeys: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: -1, max: 1 }), fc.oneof(scalar, value)), {
          maxLength: 4,
        }),
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((drafts) =>
      drafts.map(([shape, plants]) => {
        const planted = { ...shape };
        for (const [choice, stretch, inner] of plants) {
          const at = paths[choice % Math.max(paths.length, 1)] ?? [];
          plant(planted, stretch < 0 ? at.slice(0, -1) : stretch > 0 ? [...at, 'a'] : at, inner);
        }
        return JSON.parse(JSON.stringify(planted)) as Record<string, unknown>;
      }),
    );

/** Sets `value` at `path`, replacing what is in the way by objects (as own properties, `__proto__` too). */
function plant(object: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = object;
  path.forEach((step, depth) => {
    const isLast = depth === path.length - 1;
    const current = Object.hasOwn(at, step) ? at[step] : undefined;
    const next = isLast
      ? value
      : typeof current === 'object' && current && !Array.isArray(current)
        ? current
        : {};
    Object.defineProperty(at, step, { value: next, enumerable: true, writable: true, configurable: true });
    at = next as Record<string, unknown>;
  });
}

/** The value at `path` as the walker must read it: descending only into objects within the depth limit. */
function reach(
  record: Record<string, unknown>,
  path: readonly string[],
): { found: boolean; value?: unknown } {
  let at: unknown = record;
  for (let depth = 0; depth < path.length; depth++) {
    if (typeof at !== 'object' || at === null || Array.isArray(at) || depth >= maxFlattenDepth)
      return { found: false };
    if (!Object.hasOwn(at, path[depth]!)) return { found: false };
    at = (at as Record<string, unknown>)[path[depth]!];
  }
  return { found: at !== null && at !== undefined, value: at };
}

/** Every scalar field of a record, with its path, down to the depth limit and never into arrays. */
function scalarPaths(object: Record<string, unknown>, prefix: string[] = []): Array<[string[], unknown]> {
  return Object.entries(object).flatMap(([key, inner]): Array<[string[], unknown]> => {
    const at = [...prefix, key];
    if (inner === null) return [];
    if (typeof inner !== 'object') return [[at, inner]];
    if (Array.isArray(inner) || at.length >= maxFlattenDepth) return [];
    return scalarPaths(inner as Record<string, unknown>, at);
  });
}

const startsWith = (path: readonly string[], prefix: readonly string[]) =>
  prefix.length <= path.length && prefix.every((step, i) => path[i] === step);
const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && startsWith(a, b);

// The walker is generated code (walker-source.ts compiles a column set into source run through
// `new Function`); this property test holds it to a plain reading of each path, on random column
// sets and random records whose property names are awkward as code.
describe('createRecordWalker, generated, against a plain reading of the records', () => {
  it('fills each column from its path, counts misfits as drift and reports each scalar without a column', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(fc.array(column, { maxLength: 8 }), fc.array(path, { maxLength: 2 }))
          .chain(([specs, excluded]) =>
            records([...specs.map((spec) => spec.path), ...excluded]).map((received) => ({
              specs,
              excluded,
              received,
            })),
          ),
        ({ specs, excluded, received: records }) => {
          const columns: TypedColumn[] = specs.map((spec, i) => ({
            ...spec,
            name: `c${i}`,
            origin: 'inferred',
          }));
          const walk = createRecordWalker(columns, excluded);
          const observations = emptyObservations();
          const isExcluded = (at: readonly string[]) => excluded.some((prefix) => startsWith(at, prefix));
          const drift = new Map<number, number>();
          for (const record of records) {
            const expected = columns.map((column, index): ColumnValue => {
              const reached = reach(record, column.path);
              if (!reached.found || isExcluded(column.path)) return null;
              const converted =
                typeof reached.value === 'object' ? misfit : columnConverters[column.type](reached.value);
              if (converted !== misfit) return converted;
              drift.set(index, (drift.get(index) ?? 0) + 1);
              return null;
            });
            expect(walk(record, observations)).toEqual(expected);
          }
          expect(new Map([...observations.drift].map(([index, { count }]) => [index, count]))).toEqual(drift);
          const unknown = records
            .flatMap((record) => scalarPaths(record))
            .filter(([at]) => !isExcluded(at) && !columns.some((column) => same(column.path, at)))
            .map(([at]) => at.join('\u001f'));
          expect([...observations.unknown.keys()].sort()).toEqual([...new Set(unknown)].sort());
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('one copy per process for the stores of many connections', () => {
  const column = (name: string, path: string[], type: ColumnType = 'text'): TypedColumn => ({
    name,
    path,
    type,
    origin: 'inferred',
  });

  it('gives equal columns one frozen copy, read from any store (toColumn) or made in any', () => {
    const first = sharedColumn(column('client_id', ['client', 'id']));
    expect(sharedColumn(column('client_id', ['client', 'id']))).toBe(first);
    expect(toColumn({ name: 'client_id', path: '["client","id"]', type: 'text', origin: 'inferred' })).toBe(
      first,
    );
    expect(Object.isFrozen(first) && Object.isFrozen(first.path)).toBe(true);
    expect(sharedColumn(column('client_id', ['client', 'id'], 'integer'))).not.toBe(first);
  });

  it('builds one walker per column set, and a walker shared by two stores keeps nothing between records', () => {
    const set = () => [column('id_of_client', ['client', 'id']), column('total', ['total'], 'number')];
    const walker = createRecordWalker(set(), [['id']]);
    expect(createRecordWalker(set(), [['id']])).toBe(walker);
    expect(createRecordWalker(set().reverse(), [['id']])).not.toBe(walker);
    expect(createRecordWalker(set(), [])).not.toBe(walker);
    const observations = emptyObservations();
    expect(walker({ client: { id: 'c1', name: 'x' }, total: 5 }, observations)).toEqual(['c1', 5]);
    expect(walker({ client: { deeper: { id: 'no' } }, total: 'bad' }, observations)).toEqual([null, null]);
    expect(walker({ client: { id: 'c2' } }, observations)).toEqual(['c2', null]);
  });
});
