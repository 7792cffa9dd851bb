import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { StoreDatabase, SyncStateTable } from './database.js';
import { StateConflictError, WatermarkRegressionError } from './errors.js';
import { statementOnce } from './statement-once.js';
import type { StateTransition, SyncState } from './store.js';
import type { SqlTypes } from './store-dialect.js';
import { toStoredDate } from './stored-values.js';

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
 * Applies a transition inside the caller's transaction (invariant 3) in one statement: the write
 * only matches the row at `expectedVersion` (and, for a new watermark, one not above it), so of
 * two runs that read the same version exactly one commits; the other's whole transaction rolls
 * back with `StateConflictError`. Only a refused write reads the row again, to say why.
 */
export async function applyTransition(
  trx: Kysely<StoreDatabase>,
  types: SqlTypes,
  transition: StateTransition,
  now: Date,
): Promise<SyncState> {
  const row = (await trx.executeQuery(transitionQuery(trx, transition, now))).rows[0];
  if (row) return decodeState(row as Selectable<SyncStateTable>, types);
  return refuseTransition(trx, types, transition);
}

/** The one statement of a transition; it returns the new row, or none when refused. */
export function transitionQuery(
  db: Kysely<StoreDatabase>,
  transition: StateTransition,
  now: Date,
): CompiledQuery {
  const { stream, expectedVersion, watermark } = transition;
  const partition = transition.partition ?? '';
  const values = {
    ...(watermark === undefined ? {} : { watermark }),
    ...(transition.cursor === undefined ? {} : { cursor: transition.cursor }),
    ...(transition.cycleMaxSequence === undefined ? {} : { cycle_max_sequence: transition.cycleMaxSequence }),
    ...(transition.strategyState === undefined ? {} : { strategy_state: jsonText(transition.strategyState) }),
    version: expectedVersion + 1,
    updated_at: now.toISOString(),
  };
  if (expectedVersion === 0) {
    return db
      .insertInto('sync_state')
      .values({ stream, partition, ...values })
      .onConflict((oc) => oc.columns(['stream', 'partition']).doNothing())
      .returningAll()
      .compile();
  }
  return db
    .updateTable('sync_state')
    .set(values)
    .where('stream', '=', stream)
    .where('partition', '=', partition)
    .where('version', '=', expectedVersion)
    .$if(watermark === null, (q) => q.where('watermark', 'is', null))
    .$if(typeof watermark === 'number', (q) =>
      q.where((eb) => eb.or([eb('watermark', 'is', null), eb('watermark', '<=', watermark!)])),
    )
    .returningAll()
    .compile();
}

/** The state a transition's returned row describes. */
export function transitionState(row: unknown, types: SqlTypes): SyncState {
  return decodeState(row as Selectable<SyncStateTable>, types);
}

/** Reads why a transition was refused and throws it: another run moved the state, or the watermark would go back. */
export async function refuseTransition(
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

/** Forgets watermark, checkpoint and strategy state; the version moves, so a run in flight conflicts. */
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
