import type { Insertable, Kysely, Selectable } from 'kysely';
import type { StoreDatabase, SyncRunsTable } from './database.js';
import { statementOnce } from './statement-once.js';
import type {
  PartitionRunHealth,
  RunCounts,
  RunFilter,
  RunResult,
  RunSuccess,
  RunTrigger,
  SyncRun,
} from './store-types.js';
import { storableText, toStoredDate } from './stored-values.js';

export interface FinishRunInput extends RunCounts {
  readonly result: Exclude<RunResult, 'running'>;
  readonly error?: string | null;
  /** @default new Date() */
  readonly now?: Date;
}

/** What a run's `sync_runs` row says when it starts (`startedAt` in ISO 8601). */
export interface RunStart {
  readonly stream: string;
  readonly partition: string;
  readonly trigger: string;
  readonly startedAt: string;
}

/** A run's `sync_runs` row as it starts: result `running`, every count 0. */
export function runStartValues(run: RunStart) {
  return {
    stream: run.stream,
    partition: run.partition,
    trigger: run.trigger,
    started_at: run.startedAt,
    pages: 0,
    inserted: 0,
    updated: 0,
    deleted: 0,
    rejected: 0,
    result: 'running',
  };
}

/** Records a run's start (result `running`); its id. */
export async function startRun(db: Kysely<StoreDatabase>, run: RunStart): Promise<number> {
  const [row] = (await runStart(db, run)).rows;
  return Number(row!.id);
}

const runStart = statementOnce((db, run: RunStart) =>
  db.insertInto('sync_runs').values(runStartValues(run)).returning('id'),
);

/** A run that wrote nothing else, once it ended: its whole row, start to finish. */
export function endedRunValues(run: RunStart, input: FinishRunInput): Insertable<SyncRunsTable> {
  return {
    stream: run.stream,
    partition: run.partition,
    trigger: run.trigger,
    started_at: run.startedAt,
    rejected: 0,
    ...runEndValues(input),
  };
}

export async function finishRun(
  db: Kysely<StoreDatabase>,
  runId: number,
  input: FinishRunInput,
): Promise<void> {
  await runUpdate(db, { id: runId, ...runEndValues(input) });
}

const runUpdate = statementOnce((db, run: { id: number } & RunEndValues) => {
  const { id, ...end } = run;
  return db.updateTable('sync_runs').set(end).where('id', '=', id);
});

type RunEndValues = ReturnType<typeof runEndValues>;

/** The columns of a run's row that its end sets (an update of its row, or the row written whole). */
function runEndValues(input: FinishRunInput) {
  return {
    finished_at: (input.now ?? new Date()).toISOString(),
    result: input.result,
    error: input.error === null || input.error === undefined ? null : storableText(input.error),
    pages: input.pages,
    inserted: input.inserted,
    updated: input.updated,
    deleted: input.deleted,
    drift: input.drift,
    held_deletes: input.held,
  };
}

export async function listRuns(db: Kysely<StoreDatabase>, filter: RunFilter = {}): Promise<SyncRun[]> {
  const rows = await db
    .selectFrom('sync_runs')
    .selectAll()
    .$if(filter.stream !== undefined, (q) => q.where('stream', '=', filter.stream!))
    .$if(filter.partition !== undefined, (q) => q.where('partition', '=', filter.partition!))
    .$if(filter.result !== undefined, (q) => q.where('result', '=', filter.result!))
    .orderBy('id', 'desc')
    .limit(filter.limit ?? 20)
    .execute();
  return rows.map(decodeRun);
}

/** The latest run of every stream partition (`partition_runs`: one row each, whatever the runs piled up). */
export async function lastRuns(db: Kysely<StoreDatabase>): Promise<SyncRun[]> {
  const rows = await db
    .selectFrom('partition_runs')
    .innerJoin('sync_runs', 'sync_runs.id', 'partition_runs.last_run_id')
    .selectAll('sync_runs')
    .orderBy('sync_runs.stream')
    .orderBy('sync_runs.partition')
    .execute();
  return rows.map(decodeRun);
}

/**
 * Every stream partition's latest result and error, and its last success: what `/metrics` and the
 * readiness check read at every scrape, one read of `partition_runs` and no whole run decoded.
 */
export async function partitionHealth(db: Kysely<StoreDatabase>): Promise<PartitionRunHealth[]> {
  const rows = await partitionsWithLatestRun(db)
    .select([
      'partition_runs.stream',
      'partition_runs.partition',
      'partition_runs.last_success_at',
      'sync_runs.result',
      'sync_runs.error',
    ])
    .execute();
  return rows.map((row) => ({
    stream: row.stream,
    partition: row.partition,
    result: row.result as RunResult | null,
    error: row.error,
    lastSuccessAt: toStoredDate(row.last_success_at),
  }));
}

/** Each stream partition's `partition_runs` row beside its latest run (none when its runs were deleted by hand). */
export function partitionsWithLatestRun(db: Kysely<StoreDatabase>) {
  return db.selectFrom('partition_runs').leftJoin('sync_runs', 'sync_runs.id', 'partition_runs.last_run_id');
}

/** When each stream partition last finished a run that succeeded (partitions that never did are absent). */
export async function lastSuccesses(db: Kysely<StoreDatabase>): Promise<RunSuccess[]> {
  const rows = await db
    .selectFrom('partition_runs')
    .select(['stream', 'partition', 'last_success_at'])
    .where('last_success_at', 'is not', null)
    .execute();
  return rows.map((row) => ({
    stream: row.stream,
    partition: row.partition,
    finishedAt: toStoredDate(row.last_success_at)!,
  }));
}

function decodeRun(row: Selectable<SyncRunsTable>): SyncRun {
  return {
    id: Number(row.id),
    stream: row.stream,
    partition: row.partition,
    trigger: row.trigger as RunTrigger,
    startedAt: toStoredDate(row.started_at)!,
    finishedAt: toStoredDate(row.finished_at),
    pages: row.pages,
    inserted: row.inserted,
    updated: row.updated,
    deleted: row.deleted,
    drift: Number(row.drift),
    held: Number(row.held_deletes),
    result: row.result as RunResult,
    error: row.error,
  };
}
