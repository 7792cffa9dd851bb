/** A column of a stream's table (or live view) in one connection's schema. */
export interface SourceColumn {
  readonly name: string;
  /** As PostgreSQL's `format_type` names it (`text`, `numeric`, `timestamp with time zone`, `text[]`, ...). */
  readonly type: string;
}

/** One connection's relation (a stream table or its live view) that a union view reads. */
export interface UnionSource {
  readonly connection: string;
  readonly schema: string;
  readonly columns: readonly SourceColumn[];
}

/** The column a union view adds: the connection each row came from. */
export const connectionColumn = 'connection';

/**
 * The columns every source has with the same type, in the first source's order: a column one
 * connection lacks (a field only its records have) or types otherwise is left out, as is a typed
 * column that would take the name of `connectionColumn`. What is left out stays in `data`.
 */
export function sharedColumns(sources: readonly UnionSource[]): string[] {
  const [first, ...rest] = sources;
  if (first === undefined) return [];
  const typeIn = (source: UnionSource) => new Map(source.columns.map((column) => [column.name, column.type]));
  const others = rest.map(typeIn);
  return first.columns
    .filter((column) => column.name !== connectionColumn)
    .filter((column) => others.every((types) => types.get(column.name) === column.type))
    .map((column) => column.name);
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * `CREATE VIEW <schema>.<relation>` as the UNION ALL of the relation in every source, each row
 * with its connection's name first. Names are quoted; the connections' names and schemas are
 * checked names (lower-case letters, digits, `_`), so the literal needs no escaping beyond quotes.
 */
export function unionViewSql(schema: string, relation: string, sources: readonly UnionSource[]): string {
  const columns = sharedColumns(sources).map(quote).join(', ');
  const selects = sources.map(
    (source) =>
      `select '${source.connection.replaceAll("'", "''")}'::text as ${connectionColumn}, ${columns} from ${quote(source.schema)}.${quote(relation)}`,
  );
  return `create view ${quote(schema)}.${quote(relation)} as\n${selects.join('\nunion all\n')}`;
}
