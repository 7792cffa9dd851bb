import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { StoreDatabase } from './database.js';
import { sharedText } from './shared-text.js';

/**
 * A statement Kysely builds and compiles once per database, then runs with each call's values.
 * Building and compiling costs ~50-100 µs a statement, more than a keyed read or a run's row takes
 * to run: the statements every partition's run makes (its state, its `sync_runs` row, the settled
 * pass) would cost more to compile than to run. `build` receives stand-ins for the values and must
 * pass each one on as a parameter, unchanged (no `.toISOString()` inside: give it the string).
 * `shape` names whatever else the statement's text depends on (a table's name, a number of rows):
 * one compile each. Values may be a list: `build` then receives a list of stand-ins.
 */
export function statementOnce<V extends object, R>(
  build: (db: Kysely<StoreDatabase>, values: V) => Compilable<R>,
): (db: Kysely<StoreDatabase>, values: V, shape?: string) => Promise<QueryResult<R>> {
  const compiled = compiledOnce(build);
  return (db, values, shape) => db.executeQuery(compiled(db, values, shape));
}

/** `statementOnce`'s compiled statement, for a caller that runs it itself (a page's transaction). */
export function compiledOnce<V extends object, R>(
  build: (db: Kysely<StoreDatabase>, values: V) => Compilable<R>,
): (db: Kysely<StoreDatabase>, values: V, shape?: string) => CompiledQuery<R> {
  const templates = new WeakMap<Kysely<StoreDatabase>, Map<string, Template>>();
  return (db, values, shape = '') => {
    let ofDb = templates.get(db);
    if (!ofDb) {
      ofDb = new Map();
      templates.set(db, ofDb);
    }
    let template = ofDb.get(shape);
    if (!template) {
      template = compileTemplate(build, db, Object.keys(values), Array.isArray(values));
      ofDb.set(shape, template);
    }
    return bind(template, values as Record<string, unknown>);
  };
}

/** A compiled statement's text and parameters, not its syntax tree (kept per database: ~40 KB a store). */
interface Template {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** For each parameter, the name of the value it takes, or undefined for a constant of the statement. */
  readonly slots: ReadonlyArray<string | undefined>;
}

const standInPrefix = '\u0000statement-once:';

function compileTemplate<V, R>(
  build: (db: Kysely<StoreDatabase>, values: V) => Compilable<R>,
  db: Kysely<StoreDatabase>,
  names: readonly string[],
  list: boolean,
): Template {
  // A list of values (a multi-row insert's, row after row) gets a list of stand-ins.
  const standIns = (
    list
      ? names.map((name) => `${standInPrefix}${name}`)
      : Object.fromEntries(names.map((name) => [name, `${standInPrefix}${name}`]))
  ) as V;
  const query = build(db, standIns).compile();
  const slots = query.parameters.map((parameter) =>
    typeof parameter === 'string' && parameter.startsWith(standInPrefix)
      ? parameter.slice(standInPrefix.length)
      : undefined,
  );
  const bound = new Set(slots);
  const unbound = names.filter((name) => !bound.has(name));
  if (query.sql.includes(standInPrefix) || unbound.length > 0)
    throw new Error(`statementOnce: ${unbound.join(', ') || 'a value'} is not passed on as a parameter`);
  return { sql: sharedText(query.sql), parameters: query.parameters, slots };
}

function bind<R>(template: Template, values: Record<string, unknown>): CompiledQuery<R> {
  const { slots } = template;
  const parameters = template.parameters.map((constant, i) => {
    const name = slots[i];
    return name === undefined ? constant : values[name];
  });
  // A query of its own (a new id): a plugin may keep what it learns per query.
  return CompiledQuery.raw(template.sql, parameters) as CompiledQuery<R>;
}
