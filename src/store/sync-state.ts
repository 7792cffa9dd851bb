import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { StoreDatabase, SyncStateTable } from './database.js';
import { forKeyChunks } from './key-chunks.js';
import { scopeCountSelections } from './mark-missing.js';
import { compiledOnce, statementOnce } from './statement-once.js';
import type { SqlTypes } from './store-dialect.js';
import { StateConflictError, WatermarkRegressionError } from './store-errors.js';
import type { SyncState } from './store-types.js';
import { toStoredDate } from './stored-values.js';
import type { StreamTable } from './stream-tables.js';
import { type RunStart, runStartValues } from './sync-runs.js';

/**
 * A compare-and-set on `sync_state`, applied in the same transaction as the data it describes
 * (docs/sync-engine.md, invariants 1 and 3). Omitted fields keep their committed value; null clears them.
 */
export interface StateTransition {
  readonly stream: string;
  /** @default '' */
  readonly partition?: string;
  /** The `version` the run read; the transition fails with `StateConflictError` if the row moved. */
  readonly expectedVersion: number;
  /** Never lower than the committed one (`WatermarkRegressionError`); only `resetState` forgets it. */
  readonly watermark?: number | null;
  readonly cursor?: string | null;
  readonly cycleMaxSequence?: number | null;
  readonly strategyState?: unknown;
}

/**
 * A transition as a page's transaction carries it: the one statement to run (it answers the new
 * row, or none when refused), and what that answer means: the state committed, or the refusal
 * (`StateConflictError`, `WatermarkRegressionError`) thrown.
 */
interface StateWrite {
  readonly query: CompiledQuery;
  outcome(row: unknown): Promise<SyncState>;
}

/** The committed state of a stream partition; version 0 with nulls when it was never written. */
export async function readState(
  db: Kysely<StoreDatabase>,
  types: SqlTypes,
  stream: string,
  partition = '',
): Promise<SyncState> {
  const [row] = (await stateRow(db, { stream, partition })).rows;
  return row ? decodeState(row, types) : emptyState(stream, partition);
}

const stateRow = statementOnce((db, at: { stream: string; partition: string }) =>
  db
    .selectFrom('sync_state')
    .selectAll()
    .where('stream', '=', at.stream)
    .where('partition', '=', at.partition),
);

/** The columns of a partition's state beside its key. */
const stateReadColumns = [
  'watermark',
  'cursor',
  'cycle_max_sequence',
  'strategy_state',
  'version',
  'updated_at',
] as const;

/**
 * Records the start of a run (`sync_runs`, result `running`) and reads its partition's committed
 * state, in one statement: the state's columns are subqueries of the insert's RETURNING (both
 * dialects take them), so a run opens with one round trip instead of two. With `ownScope` (the
 * run's table, scoped by its partition or unscoped), the live and held rows of the run's own scope
 * are counted too, before the run writes: what a snapshot pass asks of it (`scope`).
 */
export async function startRunReadingState(
  db: Kysely<StoreDatabase>,
  types: SqlTypes,
  run: RunStart,
  ownScope?: StreamTable,
): Promise<{ runId: number; state: SyncState; scope?: { live: number; held: number } }> {
  const row = (
    ownScope ? await runStartOfScope(ownScope)(db, run, ownScope.name) : await runInsertReadingState(db, run)
  ).rows[0]! as Record<string, unknown>;
  const { id, scope_live, scope_held, ...state } = row;
  const found =
    state.version === null || state.version === undefined
      ? undefined
      : (state as Omit<Selectable<SyncStateTable>, 'stream' | 'partition'>);
  return {
    runId: Number(id),
    state: found
      ? decodeState({ stream: run.stream, partition: run.partition, ...found }, types)
      : emptyState(run.stream, run.partition),
    ...(ownScope ? { scope: { live: Number(scope_live), held: Number(scope_held) } } : {}),
  };
}

function runStartReturning(db: Kysely<StoreDatabase>, run: RunStart, ownScope?: StreamTable) {
  return db
    .insertInto('sync_runs')
    .values(runStartValues(run))
    .returning((eb) => [
      'id',
      ...stateReadColumns.map((column) =>
        eb
          .selectFrom('sync_state')
          .select(column)
          .where('stream', '=', run.stream)
          .where('partition', '=', run.partition)
          .as(column),
      ),
      ...(ownScope ? scopeCountSelections(db, ownScope, { stream: run.stream, scope: run.partition }) : []),
    ]);
}

const runInsertReadingState = statementOnce((db, run: RunStart) => runStartReturning(db, run));

/** The start statement of each scoped table's runs, compiled once per table (its text names the table). */
const runStartsOfScope = new Map<string, ReturnType<typeof statementOnce<RunStart, unknown>>>();

function runStartOfScope(table: StreamTable) {
  let start = runStartsOfScope.get(table.name);
  if (!start) {
    start = statementOnce((db, run: RunStart) => runStartReturning(db, run, table));
    runStartsOfScope.set(table.name, start);
  }
  return start;
}

/**
 * The committed states of these partitions of one stream (version 0 with nulls for one never
 * written), a statement per chunk of partitions: a plan's read-ahead (plan-reads.ts).
 */
export async function readStates(
  db: Kysely<StoreDatabase>,
  types: SqlTypes,
  stream: string,
  partitions: readonly string[],
): Promise<Map<string, SyncState>> {
  const states = new Map<string, SyncState>();
  await forKeyChunks(partitions, async (some) => {
    const rows = await db
      .selectFrom('sync_state')
      .selectAll()
      .where('stream', '=', stream)
      .where('partition', 'in', some)
      .execute();
    for (const row of rows) states.set(row.partition, decodeState(row, types));
  });
  for (const partition of partitions)
    if (!states.has(partition)) states.set(partition, emptyState(stream, partition));
  return states;
}

/** `stateVersion` of these partitions of one stream (0 for one never written): no state decoded. */
export async function stateVersions(
  db: Kysely<StoreDatabase>,
  stream: string,
  partitions: readonly string[],
): Promise<Map<string, number>> {
  const versions = new Map(partitions.map((partition) => [partition, 0]));
  await forKeyChunks(partitions, async (some) => {
    const rows = await db
      .selectFrom('sync_state')
      .select(['partition', 'version'])
      .where('stream', '=', stream)
      .where('partition', 'in', some)
      .execute();
    for (const row of rows) versions.set(row.partition, Number(row.version));
  });
  return versions;
}

/** Whether the partition, or any partition of the stream, has committed state (a keyed read of one row). */
export async function everCommitted(
  db: Kysely<StoreDatabase>,
  stream: string,
  partition: string | undefined,
): Promise<boolean> {
  const found =
    partition === undefined
      ? await committedInStream(db, { stream })
      : await committedPartition(db, { stream, partition });
  return found.rows.length > 0;
}

/** The partition's state version (`sync_state.version`): 0 when it was never written. */
export async function stateVersion(
  db: Kysely<StoreDatabase>,
  stream: string,
  partition: string,
): Promise<number> {
  const [row] = (await versionOf(db, { stream, partition })).rows;
  return row ? Number(row.version) : 0;
}

const versionOf = statementOnce((db, at: { stream: string; partition: string }) =>
  db
    .selectFrom('sync_state')
    .select('version')
    .where('stream', '=', at.stream)
    .where('partition', '=', at.partition),
);

const committedInStream = statementOnce((db, at: { stream: string }) =>
  db
    .selectFrom('sync_state')
    .select('version')
    .where('stream', '=', at.stream)
    .where('version', '>', 0)
    .limit(1),
);

const committedPartition = statementOnce((db, at: { stream: string; partition: string }) =>
  db
    .selectFrom('sync_state')
    .select('version')
    .where('stream', '=', at.stream)
    .where('partition', '=', at.partition)
    .where('version', '>', 0),
);

export async function listStates(db: Kysely<StoreDatabase>, types: SqlTypes): Promise<SyncState[]> {
  const rows = await db.selectFrom('sync_state').selectAll().orderBy('stream').orderBy('partition').execute();
  return rows.map((row) => decodeState(row, types));
}

/**
 * The write of a transition (invariant 3) in one statement: it only matches the row at
 * `expectedVersion` (and, for a new watermark, one not above it), so of two runs that read the same
 * version exactly one commits; the other's whole transaction rolls back with `StateConflictError`.
 * Only a refused write reads the row again, to say why.
 */
export function stateWrite(
  db: Kysely<StoreDatabase>,
  types: SqlTypes,
  transition: StateTransition,
  now: Date,
): StateWrite {
  return {
    query: transitionQuery(db, transition, now),
    outcome: async (row) =>
      row ? decodeState(row as Selectable<SyncStateTable>, types) : refuseTransition(db, types, transition),
  };
}

/** The one statement of a transition; it returns the new row, or none when refused. */
function transitionQuery(db: Kysely<StoreDatabase>, transition: StateTransition, now: Date): CompiledQuery {
  const { watermark } = transition;
  const values: TransitionValues = {
    stream: transition.stream,
    partition: transition.partition ?? '',
    expectedVersion: transition.expectedVersion,
    version: transition.expectedVersion + 1,
    updatedAt: now.toISOString(),
    ...(watermark === undefined ? {} : watermark === null ? { noWatermark: null } : { watermark }),
    ...(transition.cursor === undefined ? {} : { cursor: transition.cursor }),
    ...(transition.cycleMaxSequence === undefined ? {} : { cycleMaxSequence: transition.cycleMaxSequence }),
    ...(transition.strategyState === undefined ? {} : { strategyState: jsonText(transition.strategyState) }),
  };
  // The statement's text follows which fields the transition sets.
  const shape = Object.keys(values).join(',');
  if (transition.expectedVersion > 0) return nextTransition(db, values, shape);
  const { expectedVersion: _none, ...first } = values;
  return firstTransition(db, first, shape);
}

/** A transition's values; the watermark's `noWatermark` when it is set to null (the row must hold none). */
interface TransitionValues {
  readonly stream: string;
  readonly partition: string;
  /** Absent from the first transition (an insert of the row). */
  readonly expectedVersion?: number;
  readonly version: number;
  readonly updatedAt: string;
  readonly watermark?: number;
  readonly noWatermark?: null;
  readonly cursor?: string | null;
  readonly cycleMaxSequence?: number | null;
  readonly strategyState?: string | null;
}

function stateColumns(t: TransitionValues) {
  return {
    ...('watermark' in t ? { watermark: t.watermark } : {}),
    ...('noWatermark' in t ? { watermark: t.noWatermark } : {}),
    ...('cursor' in t ? { cursor: t.cursor } : {}),
    ...('cycleMaxSequence' in t ? { cycle_max_sequence: t.cycleMaxSequence } : {}),
    ...('strategyState' in t ? { strategy_state: t.strategyState } : {}),
    version: t.version,
    updated_at: t.updatedAt,
  };
}

const firstTransition = compiledOnce((db, t: TransitionValues) =>
  db
    .insertInto('sync_state')
    .values({ stream: t.stream, partition: t.partition, ...stateColumns(t) })
    .onConflict((oc) => oc.columns(['stream', 'partition']).doNothing())
    .returningAll(),
);

const nextTransition = compiledOnce((db, t: TransitionValues) =>
  db
    .updateTable('sync_state')
    .set(stateColumns(t))
    .where('stream', '=', t.stream)
    .where('partition', '=', t.partition)
    .where('version', '=', t.expectedVersion!)
    .$if('noWatermark' in t, (q) => q.where('watermark', 'is', null))
    .$if('watermark' in t, (q) =>
      q.where((eb) => eb.or([eb('watermark', 'is', null), eb('watermark', '<=', t.watermark!)])),
    )
    .returningAll(),
);

/** Reads why a transition was refused and throws it: another run moved the state, or the watermark would go back. */
async function refuseTransition(
  db: Kysely<StoreDatabase>,
  types: SqlTypes,
  transition: StateTransition,
): Promise<never> {
  const { stream, expectedVersion, watermark } = transition;
  const partition = transition.partition ?? '';
  const current = await readState(db, types, stream, partition);
  if (current.version !== expectedVersion)
    throw new StateConflictError(stream, partition, expectedVersion, current.version);
  throw new WatermarkRegressionError(stream, partition, current.watermark!, watermark ?? null);
}

/** Forgets watermark, checkpoint and strategy state of a stream's partitions (one, or all); bumps versions. */
export async function forgetState(
  db: Kysely<StoreDatabase>,
  target: { readonly stream: string; readonly partition?: string | undefined },
  now: Date,
): Promise<number> {
  const result = await db
    .updateTable('sync_state')
    .set((eb) => ({
      watermark: null,
      cursor: null,
      cycle_max_sequence: null,
      strategy_state: null,
      version: eb('version', '+', 1),
      updated_at: now.toISOString(),
    }))
    .where('stream', '=', target.stream)
    .$if(target.partition !== undefined, (q) => q.where('partition', '=', target.partition!))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

function emptyState(stream: string, partition: string): SyncState {
  return {
    stream,
    partition,
    watermark: null,
    cursor: null,
    cycleMaxSequence: null,
    strategyState: null,
    version: 0,
    updatedAt: null,
  };
}

function jsonText(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

function decodeState(row: Selectable<SyncStateTable>, types: SqlTypes): SyncState {
  return {
    stream: row.stream,
    partition: row.partition,
    watermark: row.watermark,
    cursor: row.cursor,
    cycleMaxSequence: row.cycle_max_sequence,
    strategyState: types.decodeJson(row.strategy_state),
    version: row.version,
    updatedAt: toStoredDate(row.updated_at),
  };
}
