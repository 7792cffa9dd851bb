import { type DatabaseIntrospector, type DialectAdapter, type Kysely, PostgresDialect } from 'kysely';
import { SchemaIntrospector } from './schema-introspector.js';
import { SchemaMigrationLockAdapter } from './schema-migration-lock.js';

/**
 * Kysely's PostgresDialect for a store in a schema of its own, among many in one database: its
 * migration lock and its introspection are the schema's, not the whole database's.
 */
export class SchemaScopedPostgresDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new SchemaMigrationLockAdapter();
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SchemaIntrospector(db);
  }
}
