import { refreshAllQueries } from './child-queue.js';
import { historyContext } from './history/history-context.js';
import { prepareRows } from './prepare-rows.js';
import type { StoreContext } from './store-context.js';
import { scopeValue } from './store-context.js';
import type { PageWork, PageWorkResult } from './store-dialect.js';
import { SchemaMovedError } from './store-errors.js';
import type { ReceivedRecords, StoreRecord, SyncState, UpsertCounts } from './store-types.js';
import { type StateTransition, stateWrite } from './sync-state.js';

export interface WritePageInput {
  readonly stream: string;
  /** The scope value (operator id, parent id); required exactly for scoped streams. */
  readonly scope?: string;
  readonly records: readonly StoreRecord[];
  /** The answer the records were parsed from, item for item (`PageCommit.received`). @default undefined */
  readonly received?: ReceivedRecords | undefined;
  readonly now: Date;
  readonly runId: number | null;
  /** The records come from a `status=deleted` listing: stored with `deleted_at` and reason `upstream`. */
  readonly deletedUpstream?: boolean;
  /** Child streams whose children of these records must be refreshed: their keys join the child queue. */
  readonly enqueueChildren?: readonly string[];
  /** Child streams that must refresh every live parent (the end of a full cycle): one mark each. */
  readonly refreshAllChildren?: readonly string[];
  readonly state?: StateTransition | undefined;
  /** A dry run's page: the same transaction, rolled back, for its counts. @default false */
  readonly rollback?: boolean;
  /**
   * The page's transaction begins once this settles, and not at all if it rejects: the write of
   * the page before, so pages commit in order while this one is prepared. @default undefined
   */
  readonly after?: Promise<unknown>;
  /**
   * The page's place in its run (page-line.ts): where the database runs page work in the order
   * sent (SQLite), a page given the one before may be sent before that one commits, and commits
   * only if that one did (`sendEarly`). @default undefined
   */
  readonly order?: PageOrder;
}

/** A page's number (unique in the process), and the number of the page before it in its run. */
export interface PageOrder {
  readonly page: number;
  readonly after: number | undefined;
}

export interface PageResult extends UpsertCounts {
  /** Values that did not fit their typed column (stored as NULL there, whole in `data`). */
  readonly drift: number;
  /** The state as committed by the page's transition. */
  readonly state?: SyncState;
}

/** A page whose table keeps moving under it (other writers adding columns) is tried this often. */
const schemaAttempts = 5;

/**
 * Writes one page in ONE transaction: new typed columns (when its records hold new fields), the
 * rows (guarded upsert), drift counts, the child-queue entries and the state transition. If any
 * part fails, nothing of the page is committed, so the watermark is never ahead of the data
 * (docs/sync-engine.md, invariant 1). Everything is prepared before the transaction (and before
 * `after` settles), and the dialect runs the transaction (`StoreDialect.commitPageWork`) under the
 * store's retry (store-retry.ts); a dry run's page is the same transaction rolled back.
 */
export async function writePage(context: StoreContext, input: WritePageInput): Promise<PageResult> {
  const table = context.table(input.stream);
  const scope = scopeValue(table, input.scope);
  const children = input.enqueueChildren ?? [];
  const refreshAll = input.refreshAllChildren ?? [];
  for (const child of [...children, ...refreshAll]) context.catalogued(child);
  // Its rejection is the earlier page's failure (or an abort): passed on as it is, never retried.
  const after = input.after?.then(() => undefined);
  after?.catch(() => undefined);
  const rollback = input.rollback ?? false;
  for (let attempt = 1; ; attempt++) {
    const prepared = prepareRows(context, input.stream, [{ scope, records: input.records }], input.now);
    const result = await attemptPage(context, input, { prepared, rollback, after });
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
  const state = input.state && stateWrite(db, types, input.state, input.now);
  const work = {
    growth: prepared.growth,
    before: history.before,
    upsert: context.upsert(prepared.table)({
      groups: prepared.groups,
      syncedAt: now,
      deletedAt: deleted ? now : null,
      deletedReason: deleted ? 'upstream' : null,
      runId: input.runId,
      received: input.received && { count: input.records.length, ...input.received },
    }),
    rows: input.records.length,
    statements: [
      ...prepared.statements,
      ...context.dialect.enqueueParentsQueries(children, children.length > 0 ? rowIds(prepared) : [], now),
      ...refreshAllQueries(db, input.refreshAllChildren ?? [], now),
      ...history.after,
    ],
    check: prepared.check,
    transition: state?.query,
    rollback: run.rollback,
  };
  let result: PageWorkResult;
  try {
    const order = input.order;
    const commit = (early: boolean) =>
      context.retry(
        'writePage',
        () =>
          context.dialect.commitPageWork({
            order: order && { page: order.page, after: early ? order.after : undefined },
            ...work,
          }),
        pageSubject(input),
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
  // A refused transition throws why: another run moved the state, or the watermark would go back.
  if (result.refused === 'state') await state!.outcome(undefined);
  if (result.refused !== false) throw new Error(`unexpected refusal ${result.refused}`);
  const committed = state && (await state.outcome(result.transitionRow));
  return { drift: prepared.drift, ...result.counts, ...(committed ? { state: committed } : {}) };
}

/** A page named by its stream and the keys it holds, for a refusal's message. */
function pageSubject(input: WritePageInput): string {
  const ids = input.records.map((record) => record.key);
  const scope = input.scope === undefined ? '' : ` (scope ${input.scope})`;
  const keys = ids.length <= 2 ? ids.join(', ') : `${ids[0]} ... ${ids.at(-1)}`;
  return `the page of ${input.stream}${scope} with ${ids.length} records (keys ${keys || 'none'})`;
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
 * this thread between their transactions (docs/performance-history.md, "2026-11-24 (later)"). If it committed,
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
