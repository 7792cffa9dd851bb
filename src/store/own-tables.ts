import { type DatabaseIntrospector, type QueryExecutorProvider, sql, type TableMetadata } from 'kysely';

/**
 * The tables and views of this store. Kysely's introspection lists every schema of a PostgreSQL
 * database: another mirror's (STORE_SCHEMA) would pass for this one's. SQLite has no schemas.
 */
export async function ownTables(
  db: QueryExecutorProvider & { readonly introspection: DatabaseIntrospector },
): Promise<TableMetadata[]> {
  const tables = await db.introspection.getTables();
  if (tables.every((table) => table.schema === undefined)) return tables;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return tables.filter((table) => table.schema === rows[0]?.schema);
}
