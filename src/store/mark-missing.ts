import { type Kysely, sql, type Transaction } from 'kysely';
import { enqueueWhere } from './child-queue.js';
import type { StoreDatabase } from './database.js';
import { MassDeleteError } from './errors.js';
import { type DeleteTarget, finishDelete, inIdSet, setDeleted, targetWhere } from './mark-deleted.js';
import type { MarkMissingInput, MarkMissingResult } from './store.js';
import { type StoreContext, scopeValue, streamDb } from './store-context.js';
import type { IdSetEntry } from './store-dialect.js';
import type { StreamTable } from './stream-tables.js';

/**
 * After a complete pass (snapshot or reconciliation), marks the live rows of the scope whose id
 * was not seen. The seen ids go to a temporary table, so a million of them cost one anti-join.
 * The share is computed first: a pass that would delete an implausible share stops with
 * `MassDeleteError` and changes nothing (invariant 4).
 */
export async function markMissing(
  context: StoreContext,
  input: MarkMissingInput,
): Promise<MarkMissingResult> {
  const table = context.table(input.stream);
  const scope = scopeValue(table, input.scope);
  const children = input.enqueueChildren ?? [];
  for (const child of children) context.table(child);
  return context.dialect.db.transaction().execute(async (trx) => {
    const { deleted, live } = await markMissingIn(context, trx, { ...input, table, scope, children });
    if (input.dryRun) return { deleted, live };
    return { ...(await finishDelete(context, trx, deleted, input)), live };
  });
}

export interface MissingPass
  extends Pick<
    MarkMissingInput,
    'seenIds' | 'reason' | 'now' | 'maxDeleteShare' | 'minGuardedDeletes' | 'dryRun'
  > {
  readonly table: StreamTable;
  readonly scope: string | null;
  readonly children: readonly string[];
}

/** The body of `markMissing`, inside the caller's transaction: guard, queue children, mark. */
export async function markMissingIn(
  context: StoreContext,
  trx: Transaction<StoreDatabase>,
  pass: MissingPass,
): Promise<{ deleted: number; live: number }> {
  const { table, scope } = pass;
  await context.dialect.loadIdSet(trx, pass.seenIds);
  const missing: DeleteTarget = { table, scope, match: inIdSet(table, 'id', { negate: true }) };
  const live = await countOf(trx, { table, scope });
  const wouldDelete = await countOf(trx, missing);
  guardShare(pass, table, scope, wouldDelete, live);
  if (pass.dryRun) return { deleted: wouldDelete, live };
  if (pass.children.length > 0) await enqueueWhere(trx, pass.children, table, targetWhere(missing), pass.now);
  return { deleted: await setDeleted(trx, missing, pass.reason, pass.now), live };
}

export interface ScopesMissingPass
  extends Pick<MarkMissingInput, 'now' | 'maxDeleteShare' | 'minGuardedDeletes' | 'dryRun'> {
  readonly table: StreamTable;
  /** The scopes whose complete lists were seen (at least one). */
  readonly scopes: readonly string[];
  /** (scope, id) of every record seen. */
  readonly seen: Iterable<IdSetEntry>;
}

/**
 * `markMissingIn` for many scopes of a child stream at once, as `snapshot_missing`: the counts of
 * every scope come from one grouped query and the guard holds per scope; the update runs only
 * when something is missing (the common refresh changes nothing).
 */
export async function markMissingInScopes(
  context: StoreContext,
  trx: Transaction<StoreDatabase>,
  pass: ScopesMissingPass,
): Promise<number> {
  const { table } = pass;
  await context.dialect.loadIdSet(trx, pass.seen);
  const missing: DeleteTarget = {
    table,
    scope: pass.scopes,
    match: inIdSet(table, 'id', { negate: true, scoped: true }),
  };
  let wouldDelete = 0;
  for (const counts of await countsByScope(trx, missing)) {
    guardShare(pass, table, counts.scope, counts.missing, counts.live);
    wouldDelete += counts.missing;
  }
  if (pass.dryRun || wouldDelete === 0) return wouldDelete;
  return setDeleted(trx, missing, 'snapshot_missing', pass.now);
}

/** Stops a pass that would delete an implausible share of a scope (invariant 4). */
function guardShare(
  pass: Pick<MarkMissingInput, 'maxDeleteShare' | 'minGuardedDeletes'>,
  table: StreamTable,
  scope: string | null,
  wouldDelete: number,
  live: number,
): void {
  const share = live === 0 ? 0 : wouldDelete / live;
  if (share > (pass.maxDeleteShare ?? 0.5) && wouldDelete > (pass.minGuardedDeletes ?? 10)) {
    throw new MassDeleteError(table.name, scope ?? undefined, wouldDelete, live, share);
  }
}

/** Live rows and rows matching the target's condition, per scope of the target. */
async function countsByScope(
  trx: Kysely<StoreDatabase>,
  target: DeleteTarget,
): Promise<Array<{ scope: string; live: number; missing: number }>> {
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
  return rows.map((row) => ({ scope: row.scope, live: Number(row.live), missing: Number(row.missing) }));
}

async function countOf(trx: Kysely<StoreDatabase>, target: DeleteTarget): Promise<number> {
  const row = await streamDb(trx)
    .selectFrom(target.table.name)
    .where(targetWhere(target))
    .select((eb) => eb.fn.countAll<number | bigint | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
