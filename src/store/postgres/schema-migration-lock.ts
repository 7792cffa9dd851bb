import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Kysely's PostgreSQL adapter takes one advisory lock for the whole database, so the migrations of
// many stores in one database (a schema per connection) ran one after the other: about 3 s each,
// 200 connections 10 minutes before the last started. The lock keyed by the schema keeps two
// migrations of one store apart and lets the others run side by side.
const lockKey = sql`hashtextextended(coalesce(current_schema(), ''), 3853314791062309107)`;

/** Kysely's PostgreSQL adapter with the migration lock of its store's schema, not of the whole database. */
export class SchemaMigrationLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_lock(${lockKey})`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_unlock(${lockKey})`.execute(db);
  }
}
