import type { Kysely, Transaction } from 'kysely';
import { enqueueWhere } from './child-queue.js';
import type { StoreDatabase } from './database.js';
import { MassDeleteError } from './errors.js';
import { type DeleteTarget, finishDelete, inIdSet, setDeleted, targetWhere } from './mark-deleted.js';
import type { MarkMissingInput, MarkMissingResult } from './store.js';
import { type StoreContext, scopeValue, streamDb } from './store-context.js';
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
  const missing: DeleteTarget = { table, scope, match: inIdSet(table, 'id', true) };
  const live = await countOf(trx, { table, scope });
  const wouldDelete = await countOf(trx, missing);
  const share = live === 0 ? 0 : wouldDelete / live;
  if (share > (pass.maxDeleteShare ?? 0.5) && wouldDelete > (pass.minGuardedDeletes ?? 10)) {
    throw new MassDeleteError(table.name, scope ?? undefined, wouldDelete, live, share);
  }
  if (pass.dryRun) return { deleted: wouldDelete, live };
  if (pass.children.length > 0) await enqueueWhere(trx, pass.children, table, targetWhere(missing), pass.now);
  return { deleted: await setDeleted(trx, missing, pass.reason, pass.now), live };
}

async function countOf(trx: Kysely<StoreDatabase>, target: DeleteTarget): Promise<number> {
  const row = await streamDb(trx)
    .selectFrom(target.table.name)
    .where(targetWhere(target))
    .select((eb) => eb.fn.countAll<number | bigint | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
