import type { Kysely, Migration } from 'kysely';
import type { SqlTypes } from '../store-dialect.js';

/** The bookkeeping tables (docs/store.md). Static: a later change is a new numbered migration. */
export function bookkeepingMigration(types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sync_state')
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('partition', 'text', (c) => c.notNull())
        .addColumn('watermark', types.bigint)
        .addColumn('cursor', 'text')
        .addColumn('cycle_max_sequence', types.bigint)
        .addColumn('strategy_state', types.json)
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('updated_at', types.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('sync_state_pkey', ['stream', 'partition'])
        .execute();
      await db.schema
        .createTable('sync_runs')
        .addColumn('id', types.serialId.type, types.serialId.build)
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('partition', 'text', (c) => c.notNull())
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('started_at', types.timestamp, (c) => c.notNull())
        .addColumn('finished_at', types.timestamp)
        .addColumn('pages', 'integer', (c) => c.notNull())
        .addColumn('inserted', 'integer', (c) => c.notNull())
        .addColumn('updated', 'integer', (c) => c.notNull())
        .addColumn('deleted', 'integer', (c) => c.notNull())
        .addColumn('rejected', 'integer', (c) => c.notNull())
        .addColumn('result', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .execute();
      await db.schema
        .createIndex('sync_runs_stream')
        .on('sync_runs')
        .columns(['stream', 'partition', 'id'])
        .execute();
      await db.schema
        .createTable('rejected_records')
        .addColumn('id', types.serialId.type, types.serialId.build)
        .addColumn('run_id', types.bigint)
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('scope', 'text')
        .addColumn('record_key', 'text')
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('rejected_at', types.timestamp, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rejected_records_run').on('rejected_records').column('run_id').execute();
    },
  };
}

/** Child streams to refresh for every live parent: one row per child stream (`store.queueRefreshAll`). */
export function childRefreshMigration(types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('child_refresh')
        .addColumn('stream', 'text', (c) => c.primaryKey())
        .addColumn('queued_at', types.timestamp, (c) => c.notNull())
        .addColumn('taken_at', types.timestamp)
        .addColumn('after_id', 'text')
        .execute();
    },
  };
}

/** The child queue: parents whose children a child stream must refresh, filled with the parent's pages. */
/**
 * `0005-child-failures`: a parent whose children could not be fetched stays queued with why
 * (`last_error`) and how many runs failed on it (`failures`).
 */
export function childFailuresMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('child_queue').addColumn('last_error', 'text').execute();
      await db.schema
        .alterTable('child_queue')
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}

export function childQueueMigration(types: SqlTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('child_queue')
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('parent_id', 'text', (c) => c.notNull())
        .addColumn('queued_at', types.timestamp, (c) => c.notNull())
        .addColumn('taken_at', types.timestamp)
        .addPrimaryKeyConstraint('child_queue_pkey', ['stream', 'parent_id'])
        .execute();
    },
  };
}

/**
 * `0009-run-successes`: `/metrics` and `status` read each partition's last success on every scrape
 * (`lastSuccesses`); this index answers it without reading every run the table has kept.
 */
export function runSuccessesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('sync_runs_success')
        .on('sync_runs')
        .columns(['stream', 'partition', 'result', 'finished_at'])
        .execute();
    },
  };
}
