import { processTable } from '../process-table.js';
import type { ColumnConverter, ColumnValue, misfit } from './column-values.js';
import type { PageObservations, RecordWalker } from './page-observations.js';

/** A node of the column paths' trie: the columns at one path and the property names below it. */
export interface PathNode {
  /** The columns at this path (a spec column and an inferred one may share a field). */
  columns?: Array<{ readonly index: number; readonly convert: ColumnConverter }>;
  /** The record's key or sequence field: it has its own column. */
  excluded?: boolean;
  children?: Map<string, PathNode>;
}

/** What the compiled walker calls: the one definition of a property's meaning, for every case it does not inline. */
export interface WalkerParts {
  /** Handles one property of an object at `node`, reached by `path` (which it may extend and restore). */
  visit(
    node: PathNode | undefined,
    path: string[],
    key: string,
    value: unknown,
    values: ColumnValue[],
    observations: PageObservations,
  ): void;
  noteDrift(observations: PageObservations, column: number, value: unknown): void;
  readonly misfit: typeof misfit;
  /** Objects this many levels down are not descended. */
  readonly maxDepth: number;
}

/**
 * Compiles a column trie into a walker: one function per object level, whose `switch` on the
 * property name converts a scalar for a lone column or descends into a known object, and hands
 * every other property to `parts.visit`. Only column indexes and property names enter the source,
 * the names as JSON string literals, so a field name the TMS chose cannot become code. (Code
 * generation from strings is no new need: the client's envelope checks are TypeBox-compiled.)
 */
export function compileWalker(root: PathNode, width: number, parts: WalkerParts): RecordWalker {
  const levels: Array<{ readonly node: PathNode; readonly path: string[] }> = [];
  const converters: ColumnConverter[] = [];
  const functions: string[] = [];
  const compileLevel = (node: PathNode, path: string[]): number => {
    const level = levels.push({ node, path }) - 1;
    const cases: string[] = [];
    for (const [key, child] of node.children ?? []) {
      const label = `case ${JSON.stringify(key)}:`;
      const [only, ...more] = child.columns ?? [];
      if (child.excluded) cases.push(`${label} continue;`);
      else if (only && more.length === 0 && !child.children) {
        const converter = converters.push(only.convert) - 1;
        cases.push(
          `${label} if (typeof value !== 'object') { const converted = convert${converter}(value); ` +
            `if (converted === misfit) noteDrift(observations, ${only.index}, value); ` +
            `else values[${only.index}] = converted; continue; } break;`,
        );
      } else if (!only && child.children && path.length + 1 < parts.maxDepth) {
        const inner = compileLevel(child, [...path, key]);
        cases.push(
          `${label} if (!Array.isArray(value) && typeof value === 'object') { ` +
            `level${inner}(value, values, observations); continue; } break;`,
        );
      }
    }
    functions.push(
      `function level${level}(object, values, observations) { for (const key in object) { ` +
        'const value = object[key]; if (value === null || value === undefined) continue; ' +
        `switch (key) { ${cases.join(' ')} } ` +
        `visit(node${level}, path${level}, key, value, values, observations); } }`,
    );
    return level;
  };
  compileLevel(root, []);
  const source = [
    'const { visit, noteDrift, misfit } = parts;',
    ...converters.map((_, index) => `const convert${index} = converters[${index}];`),
    ...levels.map((_, level) => `const { node: node${level}, path: path${level} } = levels[${level}];`),
    ...functions,
    `return function walkRecord(record, observations) { const values = [${Array(width).fill('null').join(',')}]; ` +
      'level0(record, values, observations); return values; };',
  ].join('\n');
  return walkerFactory(source)(parts, levels, converters);
}

type WalkerFactory = (parts: WalkerParts, levels: unknown[], converters: ColumnConverter[]) => RecordWalker;

/** The walkers compiled in this process, by source: a table of another connection of the same columns reuses its bytecode. */
const factories = processTable<WalkerFactory>(1000);

function walkerFactory(source: string): WalkerFactory {
  return factories(source, () => new Function('parts', 'levels', 'converters', source) as WalkerFactory);
}
