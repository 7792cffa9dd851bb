import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { StoreDatabase } from '../database.js';

type Commands = ExpressionBuilder<StoreDatabase, 'tms_commands'>;

/**
 * A delivery pass has work: a command pending past its retry time (or never tried: admitted or
 * not), or one in flight whose lease passed. The same test as the pass's own claim, lane aside.
 */
function due(eb: Commands, now: string) {
  return eb.or([
    eb.and([
      eb('status', '=', 'pending'),
      eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]),
    ]),
    eb.and([eb('status', '=', 'in_flight'), eb('lease_until', '<', now)]),
  ]);
}

/** Whether the outbox holds a command a delivery pass would take now. */
export async function hasDue(db: Kysely<StoreDatabase>, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('tms_commands')
    .select('id')
    .where((eb) => due(eb, now.toISOString()))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * PostgreSQL: the schemas, among `schemas` of the database `db` reaches, whose outbox holds a
 * command a pass would take now: one statement however many schemas (the tables named with their
 * schema, so the session's search_path does not matter).
 */
export async function schemasWithDue(
  db: Kysely<StoreDatabase>,
  schemas: readonly string[],
  now: Date,
): Promise<Set<string>> {
  if (schemas.length === 0) return new Set();
  const at = now.toISOString();
  const probes = schemas.map(
    (schema) =>
      sql<{ schema: string }>`select ${schema}::text as schema where exists (${db
        .withSchema(schema)
        .selectFrom('tms_commands')
        .select('id')
        .where((eb) => due(eb, at))})`,
  );
  const { rows } = await sql<{ schema: string }>`${sql.join(probes, sql` union all `)}`.execute(db);
  return new Set(rows.map((row) => row.schema));
}
