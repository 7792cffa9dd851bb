import type { Kysely } from 'kysely';
import { enqueueWhere } from './child-queue.js';
import type { StoreDatabase } from './database.js';
import { MassDeleteError } from './errors.js';
import { type DeleteTarget, finishDelete, inIdSet, setDeleted, targetWhere } from './mark-deleted.js';
import type { MarkMissingInput, MarkMissingResult } from './store.js';
import { type StoreContext, scopeValue, streamDb } from './store-context.js';

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
  const maxShare = input.maxDeleteShare ?? 0.5;
  const minimum = input.minGuardedDeletes ?? 10;
  return context.dialect.db.transaction().execute(async (trx) => {
    await context.dialect.loadIdSet(trx, input.seenIds);
    const missing: DeleteTarget = { table, scope, match: inIdSet(table, 'id', true) };
    const live = await countOf(trx, { table, scope });
    const wouldDelete = await countOf(trx, missing);
    const share = live === 0 ? 0 : wouldDelete / live;
    if (share > maxShare && wouldDelete > minimum) {
      throw new MassDeleteError(table.name, scope ?? undefined, wouldDelete, live, share);
    }
    if (input.dryRun) return { deleted: wouldDelete, live };
    const children = input.enqueueChildren ?? [];
    for (const child of children) context.table(child);
    if (children.length > 0) await enqueueWhere(trx, children, table, targetWhere(missing), input.now);
    const deleted = await setDeleted(trx, missing, input.reason, input.now);
    return { ...(await finishDelete(context, trx, deleted, input)), live };
  });
}

async function countOf(trx: Kysely<StoreDatabase>, target: DeleteTarget): Promise<number> {
  const row = await streamDb(trx)
    .selectFrom(target.table.name)
    .where(targetWhere(target))
    .select((eb) => eb.fn.countAll<number | bigint | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
