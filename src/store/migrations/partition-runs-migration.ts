import { type Kysely, type Migration, sql } from 'kysely';
import type { PartitionRunsSql, SqlTypes } from '../store-dialect.js';

/**
 * `partition_runs`: per stream partition, its latest run and when it last succeeded, kept by the
 * database's own triggers on `sync_runs` (the dialect's `partitionRuns`), so `status` and every
 * metrics scrape read one row per partition, however many runs `sync_runs` has piled up. Filled
 * once from the runs recorded so far.
 */
export function partitionRunsMigration(types: SqlTypes, triggers: readonly string[]): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('partition_runs')
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('partition', 'text', (c) => c.notNull())
        .addColumn('last_run_id', types.bigint, (c) => c.notNull())
        .addColumn('last_success_at', types.timestamp)
        .addPrimaryKeyConstraint('partition_runs_pkey', ['stream', 'partition'])
        .execute();
      await sql`insert into partition_runs (stream, partition, last_run_id, last_success_at)
        select stream, partition, max(id), max(case when result = 'succeeded' then finished_at end)
        from sync_runs group by stream, partition`.execute(db);
      for (const statement of triggers) await sql.raw(statement).execute(db);
    },
  };
}

/**
 * The triggers of `partition_runs` defined again: a run that wrote nothing but its row is recorded
 * whole when it ends (partition-run.ts), so the insert of a succeeded run is a success too.
 */
export function endedRunSuccessesMigration(triggers: PartitionRunsSql): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const statement of [...triggers.drop, ...triggers.create]) await sql.raw(statement).execute(db);
    },
  };
}

/**
 * `sync_runs_success` dropped: it answered each partition's last success before `partition_runs`
 * did, and every run's row paid for it (an idle cycle's run rows ~40% faster without it, by hand).
 * The triggers of `partition_runs` defined again: a deleted run finds the last success through
 * `sync_runs_stream` (the sqlite/postgres `partitionRuns`).
 */
export function runsOneIndexMigration(triggers: PartitionRunsSql): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.dropIndex('sync_runs_success').ifExists().execute();
      for (const statement of [...triggers.drop, ...triggers.create]) await sql.raw(statement).execute(db);
    },
  };
}
