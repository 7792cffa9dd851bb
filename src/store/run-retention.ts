import { type Kysely, sql } from 'kysely';
import type { Logger } from '../logger.js';
import { describeError } from '../tms-sync-error.js';
import type { StoreDatabase } from './database.js';
import { toStoredDate } from './stored-values.js';

/**
 * How long `sync_runs` keeps a run (`sync.keepRunsDays`). Each partition's run writes a row, so a
 * worker at 500 operators every 5 minutes writes ~1.4 million a day (~130 bytes each with its
 * index): kept forever, the run history outgrows the data it describes. Each partition's latest run
 * and latest success stay whatever their age: `status`, `/metrics` and `partition_runs` read them.
 */
export interface RunRetention {
  /**
   * A run recorded in `sync_runs` ended at `at` (its clock). The first of a store and then every
   * `runsBetweenTrims`-th forget the runs older than the retention, a bounded batch each time,
   * beside the runs (never failing one: a trim that fails is logged and tried again later).
   */
  ended(at: Date): void;
  /** Resolves once no trim is under way (before the store closes). */
  settled(): Promise<void>;
}

/** Runs ended between two trims: each trim reads ~log2(runs) rows by key before deleting. */
export const runsBetweenTrims = 1000;

/**
 * Runs forgotten per statement, and statements per trim: at most 2 runs forgotten per run ended,
 * so a history older than the retention (a store that kept every run before) shrinks as runs go
 * on, while runs age out at one per run ended. Each forgotten run costs its delete ~30 µs of the
 * store's time (its index entries are spread over the partitions), about what its insert did.
 */
const rowsPerStatement = 1000;
const statementsPerTrim = 2;

const dayMs = 86_400_000;

export interface RunRetentionOptions {
  /** Days a run is kept; 0 keeps every run. */
  readonly keepDays: number;
  /** Forgets at most `limit` runs started before `before`; how many it forgot. */
  readonly forget: (before: Date, limit: number) => Promise<number>;
  readonly logger?: Logger | undefined;
}

export function createRunRetention(options: RunRetentionOptions): RunRetention {
  const { keepDays, forget, logger } = options;
  let endedSinceTrim = runsBetweenTrims - 1;
  let trimming: Promise<void> | undefined;
  const trim = async (before: Date) => {
    let forgotten = 0;
    for (let statement = 0; statement < statementsPerTrim; statement++) {
      const count = await forget(before, rowsPerStatement);
      forgotten += count;
      if (count < rowsPerStatement) break;
    }
    if (forgotten > 0)
      logger?.debug({ forgotten, before: before.toISOString() }, 'forgot runs older than sync.keepRunsDays');
  };
  return {
    ended(at) {
      if (keepDays === 0 || ++endedSinceTrim < runsBetweenTrims || trimming) return;
      endedSinceTrim = 0;
      trimming = trim(new Date(at.getTime() - keepDays * dayMs))
        .catch((error: unknown) =>
          logger?.warn(
            { error: describeError(error) },
            'could not forget the runs older than sync.keepRunsDays; tried again later',
          ),
        )
        .finally(() => {
          trimming = undefined;
        });
    },
    settled: async () => {
      await trimming;
    },
  };
}

/**
 * Deletes at most `limit` runs started before `before`, oldest first, never a partition's latest
 * run nor its latest success; how many. The runs older than `before` are found without reading the
 * table: ids grow with the runs' starts, so a binary search over the ids (a keyed read each) finds
 * where they end, and the delete walks the key from its start to there.
 */
export async function forgetRuns(
  db: Kysely<StoreDatabase>,
  before: Date,
  limit = rowsPerStatement,
): Promise<number> {
  const end = await firstIdFrom(db, before);
  if (end === undefined) return 0;
  // In a transaction of its own: on SQLite that is the store's thread's work (a delete of 1,000 runs
  // takes 10-40 ms), where a statement outside one may run on the calling thread's connection.
  const result = await db.transaction().execute((trx) =>
    trx
      .deleteFrom('sync_runs')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('sync_runs as r')
          .select('r.id')
          .where('r.id', '<', end)
          .where('r.started_at', '<', before.toISOString())
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('partition_runs as p')
                  .select(sql.lit(1).as('kept'))
                  .whereRef('p.stream', '=', 'r.stream')
                  .whereRef('p.partition', '=', 'r.partition')
                  .where(({ or, and, eb: cmp, ref }) =>
                    or([
                      cmp('p.last_run_id', '=', ref('r.id')),
                      and([
                        cmp('r.result', '=', 'succeeded'),
                        cmp('p.last_success_at', '=', ref('r.finished_at')),
                      ]),
                    ]),
                  ),
              ),
            ),
          )
          .orderBy('r.id')
          .limit(limit),
      )
      .executeTakeFirst(),
  );
  return Number(result.numDeletedRows);
}

/**
 * The first id from which the runs started at `before` or later (every run below it started
 * before, give or take runs recorded out of their start's order, which the delete checks one by
 * one); undefined when no run starts before `before` (an empty table included).
 */
async function firstIdFrom(db: Kysely<StoreDatabase>, before: Date): Promise<number | undefined> {
  const isOld = (run: { started_at: unknown }) => toStoredDate(run.started_at)!.getTime() < before.getTime();
  // The ends apart: SQLite reads min() and max() by the key only when each is a query of its own
  // (together they scanned the table's index: 30-50 ms at 500,000 runs).
  const end = (direction: 'asc' | 'desc') =>
    db
      .selectFrom('sync_runs')
      .select(['id', 'started_at'])
      .orderBy('id', direction)
      .limit(1)
      .executeTakeFirst();
  const oldest = await end('asc');
  if (!oldest || !isOld(oldest)) return undefined;
  const newest = (await end('desc'))!;
  let low = Number(oldest.id) + 1;
  let high = Number(newest.id) + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const run = await db
      .selectFrom('sync_runs')
      .select(['id', 'started_at'])
      .where('id', '>=', middle)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (run && isOld(run)) low = Number(run.id) + 1;
    else high = middle;
  }
  return low;
}
