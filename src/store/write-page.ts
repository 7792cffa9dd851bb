import { refreshAllQueries } from './child-queue.js';
import { SchemaMovedError } from './errors.js';
import { historyContext } from './history/history-context.js';
import { prepareRows } from './prepare-rows.js';
import type { PageOrder, PageResult, WritePageInput } from './store.js';
import type { StoreContext } from './store-context.js';
import { scopeValue } from './store-context.js';
import type { PageWork, PageWorkResult } from './store-dialect.js';
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
  for (const child of [...children, ...refreshAll]) context.catalogued(child);
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
  // A full cycle's pages queue no parents (its last page marks every parent instead).
  const children = input.enqueueChildren ?? [];
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
      received: input.received && { ...input.received, count: input.records.length },
    }),
    statements: [
      ...prepared.statements,
      ...context.dialect.enqueueParentsQueries(children, children.length > 0 ? rowIds(prepared) : [], now),
      ...refreshAllQueries(db, input.refreshAllChildren ?? [], now),
      ...history.after,
    ],
    check: prepared.check,
    transition: input.state && transitionQuery(db, input.state, input.now),
    rollback: run.rollback,
  };
  let result: PageWorkResult;
  try {
    const order = input.order;
    const commit = (early: boolean) =>
      run.retry(() =>
        context.dialect.commitPageWork({
          ...work,
          order: order && { page: order.page, after: early ? order.after : undefined },
        }),
      );
    result = sendEarly(context.dialect.runsPageWorkInOrder, work, run, order)
      ? await commitEarly(commit, prepared.ready(), run.after!)
      : await commitInTurn(() => commit(false), prepared.ready, run.after);
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

function rowIds(prepared: ReturnType<typeof prepareRows>): string[] {
  return prepared.groups.flatMap((group) => group.rows.map((row) => row.id));
}

/**
 * Whether the page may be sent before the page before it committed: only where the dialect runs
 * page work whole in the order sent, for a real write (not a dry run) that grows no columns and
 * knows the page before it. The database then refuses it (`early`, nothing begun) unless that page
 * committed before it on the same connection: whatever the order in which they arrive, and whether
 * the page before fails, is refused, retried or never sent, this one never commits ahead of it.
 */
function sendEarly(
  inOrder: boolean,
  work: PageWork,
  run: { rollback: boolean; after: Promise<void> | undefined },
  order: PageOrder | undefined,
): boolean {
  return (
    inOrder &&
    order?.after !== undefined &&
    run.after !== undefined &&
    !run.rollback &&
    work.transition !== undefined &&
    work.growth === undefined
  );
}

/** The page sent once the page before committed (the order the run gives). */
async function commitInTurn(
  commit: () => Promise<PageWorkResult>,
  ready: () => Promise<void>,
  after: Promise<void> | undefined,
): Promise<PageWorkResult> {
  await after;
  await ready();
  return commit();
}

/**
 * The page sent at once, to wait at the SQLite thread behind the page before: no round trip to
 * this thread between their transactions (BENCHMARKS.md, "2026-11-24 (later)"). If it committed,
 * the page before did too, and its counts stand whatever `after` says (an abort that came between
 * them stops the next page). Refused because it arrived before the page before committed, it is
 * sent again in turn; if the page before failed or the run was stopped, that is the failure.
 */
async function commitEarly(
  commit: (early: boolean) => Promise<PageWorkResult>,
  ready: Promise<void>,
  after: Promise<void>,
): Promise<PageWorkResult> {
  const early = ready.then(() => commit(true));
  early.catch(() => undefined);
  const before = await after.then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  const sent = await early.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if ('value' in sent && sent.value.refused === false) return sent.value;
  if (before) throw before.error;
  if ('error' in sent) throw sent.error;
  return sent.value.refused === 'early' ? commit(false) : sent.value;
}
