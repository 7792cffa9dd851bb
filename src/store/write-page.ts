import { refreshAllQueries } from './child-queue.js';
import { SchemaMovedError } from './errors.js';
import { historyContext } from './history/history-context.js';
import { prepareRows } from './prepare-rows.js';
import type { PageResult, WritePageInput } from './store.js';
import type { StoreContext } from './store-context.js';
import { scopeValue } from './store-context.js';
import { refuseTransition, transitionQuery, transitionState } from './sync-state.js';

/** Runs the page's transaction under the store's retry (store-retry.ts). */
type Retry = <T>(transaction: () => Promise<T>) => Promise<T>;

/** A page whose table keeps moving under it (other writers adding columns) is tried this often. */
const schemaAttempts = 5;

/**
 * Writes one page in ONE transaction: new typed columns (when its records hold new fields), the
 * rows (guarded upsert), drift counts, the child-queue entries and the state transition. If any
 * part fails, nothing of the page is committed, so the watermark is never ahead of the data
 * (invariant 1). Everything is prepared before the transaction (and before `after` settles), and
 * the dialect runs the transaction (`StoreDialect.commitPageWork`).
 */
export function writePage(context: StoreContext, input: WritePageInput, retry: Retry): Promise<PageResult> {
  return writeOrPreview(context, input, false, retry);
}

/** The counts `writePage` would return, from the same transaction rolled back (both dialects). */
export function previewPage(context: StoreContext, input: WritePageInput, retry: Retry): Promise<PageResult> {
  return writeOrPreview(context, input, true, retry);
}

async function writeOrPreview(
  context: StoreContext,
  input: WritePageInput,
  rollback: boolean,
  retry: Retry,
): Promise<PageResult> {
  const table = context.table(input.stream);
  const scope = scopeValue(table, input.scope);
  const children = input.enqueueChildren ?? [];
  const refreshAll = input.refreshAllChildren ?? [];
  for (const child of [...children, ...refreshAll]) context.table(child);
  // Its rejection is the earlier page's failure (or an abort): passed on as it is, never retried.
  const after = input.after?.then(() => undefined);
  after?.catch(() => undefined);
  for (let attempt = 1; ; attempt++) {
    const prepared = prepareRows(context, input.stream, [{ scope, records: input.records }], input.now);
    const result = await attemptPage(context, input, { prepared, rollback, retry, after });
    if (result !== 'schema') return result;
    if (attempt >= schemaAttempts) throw new SchemaMovedError(input.stream, attempt);
  }
}

async function attemptPage(
  context: StoreContext,
  input: WritePageInput,
  run: {
    prepared: ReturnType<typeof prepareRows>;
    rollback: boolean;
    retry: Retry;
    after: Promise<void> | undefined;
  },
): Promise<PageResult | 'schema'> {
  const { db, types } = context.dialect;
  const { prepared } = run;
  const now = input.now.toISOString();
  const deleted = input.deletedUpstream === true;
  const history = historyContext(context, prepared.table, input.runId);
  const work = {
    growth: prepared.growth,
    before: history.before,
    upsert: context.upsert(prepared.table)({
      groups: prepared.groups,
      syncedAt: now,
      deletedAt: deleted ? now : null,
      deletedReason: deleted ? 'upstream' : null,
      runId: input.runId,
    }),
    statements: [
      ...prepared.statements,
      ...context.dialect.enqueueParentsQueries(
        input.enqueueChildren ?? [],
        prepared.groups.flatMap((group) => group.rows.map((row) => row.id)),
        now,
      ),
      ...refreshAllQueries(db, input.refreshAllChildren ?? [], now),
      ...history.after,
    ],
    check: prepared.check,
    transition: input.state && transitionQuery(db, input.state, input.now),
    rollback: run.rollback,
  };
  let result: Awaited<ReturnType<typeof context.dialect.commitPageWork>>;
  try {
    await run.after;
    await prepared.ready();
    result = await run.retry(() => context.dialect.commitPageWork(work));
  } catch (error) {
    await prepared.settle(false);
    throw error;
  }
  await prepared.settle(result.refused === false && !run.rollback);
  if (result.refused === 'schema') {
    await context.schemas.reload(input.stream);
    return 'schema';
  }
  if (result.refused === 'state') return refuseTransition(db, types, input.state!);
  if (result.refused !== false) throw new Error(`unexpected refusal ${result.refused}`);
  const state = input.state && transitionState(result.transitionRow, types);
  return { ...result.counts, drift: prepared.drift, ...(state ? { state } : {}) };
}
