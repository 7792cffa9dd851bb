import { refreshAllQueries } from './child-queue.js';
import { rejectQueries } from './rejected-records.js';
import type { PageResult, WritePageInput } from './store.js';
import type { StoreContext } from './store-context.js';
import { scopeValue } from './store-context.js';
import { refuseTransition, transitionQuery, transitionState } from './sync-state.js';

/** Runs the page's transaction under the store's retry (store-retry.ts). */
type Retry = <T>(transaction: () => Promise<T>) => Promise<T>;

/**
 * Writes one page in ONE transaction: the rows (guarded upsert), the child-queue entries, the
 * page's rejects and the state transition. If any part fails, nothing of the page is committed,
 * so the watermark is never ahead of the data (invariant 1) and a failed page's rejects vanish
 * with it. Everything is prepared before the transaction (and before `after` settles), and the
 * dialect runs the transaction (`StoreDialect.runPage`).
 */
export function writePage(context: StoreContext, input: WritePageInput, retry: Retry): Promise<PageResult> {
  return runPage(context, input, false, retry);
}

/** The counts `writePage` would return, from the same transaction rolled back (both dialects). */
export function previewPage(context: StoreContext, input: WritePageInput, retry: Retry): Promise<PageResult> {
  return runPage(context, input, true, retry);
}

async function runPage(
  context: StoreContext,
  input: WritePageInput,
  rollback: boolean,
  retry: Retry,
): Promise<PageResult> {
  const { db, types } = context.dialect;
  const table = context.table(input.stream);
  const scope = scopeValue(table, input.scope);
  const { rows, rejected } = context.mapper(table)(input.records, input.sequenceOf);
  const deleted = input.deletedUpstream === true;
  const now = input.now.toISOString();
  const rejects = [...(input.rejected ?? []), ...rejected];
  const children = input.enqueueChildren ?? [];
  const refreshAll = input.refreshAllChildren ?? [];
  for (const child of [...children, ...refreshAll]) context.table(child);
  const work = {
    upsert: context.upsert(table)({
      groups: [{ scope, rows }],
      syncedAt: now,
      deletedAt: deleted ? now : null,
      deletedReason: deleted ? 'upstream' : null,
    }),
    statements: [
      ...context.dialect.enqueueParentsQueries(
        children,
        rows.map((row) => row.id),
        now,
      ),
      ...refreshAllQueries(db, refreshAll, now),
      ...rejectQueries(db, {
        runId: input.runId,
        stream: table.name,
        scope,
        records: rejects,
        now: input.now,
      }),
    ],
    transition: input.state && transitionQuery(db, input.state, input.now),
    rollback,
  };
  // Its rejection is the earlier page's failure (or an abort): passed on as it is, never retried.
  if (input.after) await input.after;
  const result = await retry(() => context.dialect.runPage(work));
  if (result.refused) return refuseTransition(db, types, input.state!);
  const state = input.state && transitionState(result.transitionRow, types);
  return { ...result.counts, rejected: rejects.length, ...(state ? { state } : {}) };
}
