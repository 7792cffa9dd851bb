import { type Kysely, type SqlBool, sql, type Transaction } from 'kysely';
import { enqueueWhere } from './child-queue.js';
import type { StoreDatabase } from './database.js';
import { heldScopes, noScopes, type ScopeBalance, tallyOf } from './delete-guard.js';
import { approvedScopes, clearHeld, holdDeletes } from './held-deletes.js';
import { withHistoryContext } from './history/history-context.js';
import { forKeyChunks } from './key-chunks.js';
import { type DeleteTarget, inIdSet, setDeleted, targetWhere } from './mark-deleted.js';
import { statementOnce } from './statement-once.js';
import { type StoreContext, scopeValue, streamDb } from './store-context.js';
import type { IdSetEntry, SqlTypes } from './store-dialect.js';
import type { DeleteGuard, ScopeTally } from './store-types.js';
import type { StreamTable } from './stream-tables.js';
import { inTransaction } from './transaction.js';

/** A complete pass over one scope, as a run gives it (`PartitionRun.markMissing`). */
export interface MarkMissingInput {
  readonly stream: string;
  readonly scope?: string | undefined;
  /** Every id seen in the complete pass; live rows of the scope not in it are marked deleted. */
  readonly seenIds: Iterable<string>;
  readonly reason: 'snapshot_missing' | 'reconcile_missing';
  /** Rows the pass inserted (they count on the scope's balance, delete-guard.ts). @default 0 */
  readonly listedNew?: number | undefined;
  /** The mass-delete guard's thresholds. @default defaultDeleteGuard */
  readonly guard?: DeleteGuard | undefined;
  /** Child streams whose children of the rows marked missing must be marked too: the ids join the child queue. */
  readonly enqueueChildren?: readonly string[];
  readonly now: Date;
  /** The run that deletes: recorded with the versions it closes (docs/history.md). */
  readonly runId: number | null;
  /** A dry run: the same transaction, rolled back, for its counts. */
  readonly rollback: boolean;
}

export interface MarkMissingResult {
  /** Rows marked deleted (or that would be, in a dry run). */
  readonly deleted: number;
  /** Live rows of the scope before the pass. */
  readonly live: number;
  /** Rows the guard kept live (the scope is in `held_deletes`). */
  readonly held: number;
}

/**
 * After a complete pass (snapshot or reconciliation), marks the live rows of the scope whose id
 * was not seen. The seen ids go to a temporary table, so a million of them cost one anti-join.
 * The guard judges the pass first (delete-guard.ts): an implausible one marks nothing and is
 * recorded in `held_deletes` until a person approves it or a later pass finds it plausible.
 */
export async function markMissing(
  context: StoreContext,
  input: MarkMissingInput,
): Promise<MarkMissingResult> {
  const table = context.table(input.stream);
  for (const child of input.enqueueChildren ?? []) context.catalogued(child);
  // Read twice (the settled check, then the pass): an iterator would be spent by the first.
  const pass = { ...input, seenIds: [...input.seenIds] };
  const settled = await settledPass(context, table, pass);
  if (settled) return settled;
  return inTransaction(context.dialect.db, input.rollback, (trx) =>
    withHistoryContext(context, trx, { table, runId: input.runId }, () => markMissingIn(context, trx, pass)),
  );
}

/** Passes of at most this many ids are first checked in one statement (`settledPass`). */
const settledCheckLimit = 10_000;

/**
 * The common pass, read in one statement outside any transaction: every live row of the scope was
 * seen and the guard holds nothing of it, so there is nothing to mark or clear (the run's partition
 * lock keeps other writers of the scope away). Undefined: the pass needs the full transaction.
 */
async function settledPass(
  context: StoreContext,
  table: StreamTable,
  input: MarkMissingInput,
): Promise<MarkMissingResult | undefined> {
  const settled = await settledScope(context, table, input);
  return settled && { deleted: 0, held: 0, live: settled.live };
}

/**
 * Whether a complete pass over a scope leaves nothing to mark: every live row of the scope is among
 * the ids seen and the guard holds nothing of it (one statement); with how many live rows it has
 * and how many distinct ids were seen. Undefined when something is left, or past `settledCheckLimit` ids.
 */
export async function settledScope(
  context: StoreContext,
  table: StreamTable,
  input: { readonly stream: string; readonly scope?: string | undefined; readonly seenIds: Iterable<string> },
): Promise<{ live: number; seen: number } | undefined> {
  const seen = [...new Set(input.seenIds)];
  if (seen.length > settledCheckLimit) return undefined;
  const scope = scopeValue(table, input.scope);
  const held = { stream: input.stream, scope: scope ?? '' };
  const seenJson = JSON.stringify(seen);
  const check = settledStatement(context.dialect.types, table, typeof scope === 'string');
  const row = (await check(context.dialect.db, { seen: seenJson, ...held })).rows[0]!;
  if (Number(row.missing) > 0 || Number(row.held) > 0) return undefined;
  return { live: Number(row.live), seen: seen.length };
}

/**
 * How many live rows a scope has, and whether the guard holds any of it (one statement; without the
 * settled check's list of ids, which cost twice the count: docs/performance-history.md, "Signals").
 */
export async function liveInScope(
  context: StoreContext,
  table: StreamTable,
  input: { readonly stream: string; readonly scope?: string | undefined },
): Promise<{ live: number; held: number }> {
  const scope = scopeValue(table, input.scope);
  const count = liveStatement(context.dialect.types, table, typeof scope === 'string');
  const values = { stream: input.stream, scope: scope ?? '' };
  const row = (await count(context.dialect.db, values)).rows[0]!;
  return { live: Number(row.live), held: Number(row.held) };
}

/**
 * `liveInScope` of many scopes of a scoped table at once: two grouped statements (the live rows,
 * the held deletes) per chunk of scopes; a scope without live rows counts 0.
 */
export async function liveInScopes(
  context: StoreContext,
  table: StreamTable,
  input: { readonly stream: string; readonly scopes: readonly string[] },
): Promise<Map<string, { live: number; held: number }>> {
  const column = sql.ref(`${table.name}.${table.scopeColumn!}`);
  const counts = new Map(input.scopes.map((scope) => [scope, { live: 0, held: 0 }]));
  const { db } = context.dialect;
  await forKeyChunks(input.scopes, async (some) => {
    const live = await scopeRowsOf(db, table, some)
      .select([column.as('scope'), liveCount])
      .groupBy(column)
      .execute();
    for (const row of live) {
      const found = counts.get(String(row.scope));
      if (found) found.live = Number(row.live);
    }
    const held = await db
      .selectFrom('held_deletes')
      .select(['scope', sql<number | string>`count(*)`.as('held')])
      .where('stream', '=', input.stream)
      .where('scope', 'in', some)
      .groupBy('scope')
      .execute();
    for (const row of held) {
      const found = counts.get(row.scope);
      if (found) found.held = Number(row.held);
    }
  });
  return counts;
}

interface SettledValues {
  readonly seen: string;
  readonly stream: string;
  readonly scope: string;
}

const scopeStatements = new WeakMap<SqlTypes, Map<string, unknown>>();

/**
 * A scope's counts of a table, compiled once per dialect and table (statement-once.ts): the
 * settled check ends every snapshot pass, the live count every unchanged one.
 */
function scopeStatement<S>(types: SqlTypes, key: string, compile: () => S): S {
  let ofDialect = scopeStatements.get(types);
  if (!ofDialect) {
    ofDialect = new Map();
    scopeStatements.set(types, ofDialect);
  }
  let statement = ofDialect.get(key) as S | undefined;
  if (statement === undefined) {
    statement = compile();
    ofDialect.set(key, statement);
  }
  return statement;
}

function settledStatement(types: SqlTypes, table: StreamTable, scoped: boolean) {
  return scopeStatement(types, `settled\u0000${table.name}\u0000${scoped}`, () =>
    statementOnce((db, values: SettledValues) => {
      const unseen = sql<SqlBool>`${sql.ref(`${table.name}.id`)} not in ${types.jsonTexts(values.seen)}`;
      return scopeRows(db, table, scoped, values).select([
        liveCount,
        sql<number | string>`coalesce(sum(case when ${unseen} then 1 else 0 end), 0)`.as('missing'),
        heldCount(values),
      ]);
    }),
  );
}

function liveStatement(types: SqlTypes, table: StreamTable, scoped: boolean) {
  return scopeStatement(types, `live\u0000${table.name}\u0000${scoped}`, () =>
    statementOnce((db, values: Omit<SettledValues, 'seen'>) =>
      scopeRows(db, table, scoped, values).select([liveCount, heldCount(values)]),
    ),
  );
}

function scopeRows(
  db: Kysely<StoreDatabase>,
  table: StreamTable,
  scoped: boolean,
  values: { scope: string },
) {
  return scopeRowsOf(db, table, scoped ? values.scope : null);
}

function scopeRowsOf(
  db: Kysely<StoreDatabase>,
  table: StreamTable,
  scope: string | readonly string[] | null,
) {
  return streamDb(db)
    .selectFrom(table.name)
    .where(targetWhere({ table, scope, match: undefined }));
}

const liveCount = sql<number | string>`count(*)`.as('live');

/**
 * `liveInScope` as two selections (`scope_live`, `scope_held`) of another statement: a run's start
 * reads its own scope's counts beside its state (sync-state.ts, `startRunReadingState`). An
 * unscoped table's scope is all its rows, its held deletes those of scope ''.
 */
export function scopeCountSelections(
  db: Kysely<StoreDatabase>,
  table: StreamTable,
  values: { stream: string; scope: string },
) {
  return [
    scopeRowsOf(db, table, table.scopeColumn ? values.scope : null)
      .select(sql<number | string>`count(*)`.as('n'))
      .as('scope_live'),
    sql<
      number | string
    >`(select count(*) from held_deletes where stream = ${values.stream} and scope = ${values.scope})`.as(
      'scope_held',
    ),
  ] as const;
}

function heldCount(values: { stream: string; scope: string }) {
  return sql<
    number | string
  >`(select count(*) from held_deletes where stream = ${values.stream} and scope = ${values.scope})`.as(
    'held',
  );
}

async function markMissingIn(
  context: StoreContext,
  trx: Transaction<StoreDatabase>,
  input: MarkMissingInput,
): Promise<MarkMissingResult> {
  const table = context.table(input.stream);
  const scope = scopeValue(table, input.scope);
  const children = input.enqueueChildren ?? [];
  await context.dialect.loadIdSet(trx, input.seenIds);
  const missing: DeleteTarget = { table, scope, match: inIdSet(table, 'id', { negate: true }) };
  const live = await countOf(trx, { table, scope });
  const wouldDelete = await countOf(trx, missing);
  const listedNew = input.listedNew ?? 0;
  const balance = {
    scope: scope ?? '',
    before: live - listedNew,
    after: live - wouldDelete,
    missing: wouldDelete,
  };
  const held = await judge(trx, input, [balance], undefined);
  if (held.length > 0) return { deleted: 0, held: wouldDelete, live };
  if (children.length > 0) await enqueueWhere(trx, children, table, targetWhere(missing), input.now);
  const deleted = await setDeleted(trx, missing, input.reason, input.now);
  return { deleted, held: 0, live };
}

export interface ScopesMissingPass extends Pick<MarkMissingInput, 'stream' | 'now' | 'guard' | 'runId'> {
  /** The scopes the run's earlier batches judged: the guard counts emptied scopes over the run. @default none */
  readonly earlier?: ScopeTally | undefined;
  readonly table: StreamTable;
  /** The scopes whose complete lists were seen (at least one), with how many records each listed. */
  readonly listed: ReadonlyMap<string, number>;
  /** (scope, id) of every record seen. */
  readonly seen: Iterable<IdSetEntry>;
}

/**
 * `markMissing` for many scopes of a child stream at once, as `snapshot_missing`, inside the
 * caller's transaction and before the caller's upsert: the counts of every scope come from one
 * grouped query, the guard judges the batch, and the update runs only when something is missing
 * and not held (the common refresh changes nothing).
 */
export async function markMissingInScopes(
  context: StoreContext,
  trx: Transaction<StoreDatabase>,
  pass: ScopesMissingPass,
): Promise<{ deleted: number; held: number; scopes: ScopeTally; apply: () => Promise<number> }> {
  const { table } = pass;
  await context.dialect.loadIdSet(trx, pass.seen);
  const scopes = [...pass.listed.keys()];
  const missing: DeleteTarget = {
    table,
    scope: scopes,
    match: inIdSet(table, 'id', { negate: true, scoped: true }),
  };
  const counts = await countsByScope(trx, missing);
  const balances = scopes.map((scope) => {
    const count = counts.get(scope) ?? { live: 0, missing: 0 };
    return { scope, before: count.live, after: pass.listed.get(scope)!, missing: count.missing };
  });
  const held = new Set(
    (await judge(trx, pass, balances, pass.earlier ?? noScopes)).map((balance) => balance.scope),
  );
  const applied = balances.filter((balance) => !held.has(balance.scope) && balance.missing > 0);
  const heldRows = balances
    .filter((balance) => held.has(balance.scope))
    .reduce((sum, b) => sum + b.missing, 0);
  const deleted = applied.reduce((sum, balance) => sum + balance.missing, 0);
  const apply = async () =>
    deleted === 0
      ? deleted
      : setDeleted(trx, { ...missing, scope: applied.map((b) => b.scope) }, 'snapshot_missing', pass.now);
  return { deleted, held: heldRows, scopes: tallyOf(balances), apply };
}

/**
 * The held scopes of a pass (approved ones apply), recorded in `held_deletes`; scopes the pass
 * settles are cleared from it.
 */
async function judge(
  trx: Kysely<StoreDatabase>,
  pass: Pick<MarkMissingInput, 'stream' | 'guard' | 'runId' | 'now'> & {
    reason?: MarkMissingInput['reason'];
  },
  balances: readonly ScopeBalance[],
  earlier: ScopeTally | undefined,
): Promise<ScopeBalance[]> {
  const stream = pass.stream;
  const { approved, held: heldBefore } = await approvedScopes(
    trx,
    stream,
    balances.map((balance) => balance.scope),
  );
  const held = heldScopes(balances, pass.guard ?? {}, earlier).filter(
    (balance) => !approved.has(balance.scope),
  );
  const heldNow = new Set(held.map((balance) => balance.scope));
  const settled = balances
    .map((b) => b.scope)
    .filter((scope) => heldBefore.has(scope) && !heldNow.has(scope));
  await clearHeld(trx, stream, settled);
  if (held.length > 0) {
    await holdDeletes(trx, {
      stream,
      reason: pass.reason ?? 'snapshot_missing',
      runId: pass.runId ?? null,
      now: pass.now,
      balances: held,
    });
  }
  return held;
}

/** Live rows and rows matching the target's condition, per scope of the target. */
async function countsByScope(
  trx: Kysely<StoreDatabase>,
  target: DeleteTarget,
): Promise<Map<string, { live: number; missing: number }>> {
  const column = `${target.table.name}.${target.table.scopeColumn!}`;
  const rows = await streamDb(trx)
    .selectFrom(target.table.name)
    .where(targetWhere({ ...target, match: undefined }))
    .select([
      sql<string>`${sql.ref(column)}`.as('scope'),
      sql<number | string>`count(*)`.as('live'),
      sql<number | string>`coalesce(sum(case when ${target.match!} then 1 else 0 end), 0)`.as('missing'),
    ])
    .groupBy(sql.ref(column))
    .execute();
  return new Map(rows.map((row) => [row.scope, { live: Number(row.live), missing: Number(row.missing) }]));
}

async function countOf(trx: Kysely<StoreDatabase>, target: DeleteTarget): Promise<number> {
  const row = await streamDb(trx)
    .selectFrom(target.table.name)
    .where(targetWhere(target))
    .select((eb) => eb.fn.countAll<number | bigint | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
