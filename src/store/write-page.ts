import { insertRejects } from './rejected-records.js';
import type { PageResult, WritePageInput } from './store.js';
import type { StoreContext } from './store-context.js';
import { scopeValue } from './store-context.js';
import { applyTransition } from './sync-state.js';

/** Thrown inside a preview's transaction to roll it back with the result in hand. */
class PreviewRollback extends Error {
  constructor(readonly result: PageResult) {
    super('preview rolled back');
  }
}

/**
 * Writes one page in ONE transaction: the rows (guarded upsert), the page's rejects and the state
 * transition. If any part fails, nothing of the page is committed, so the watermark is never
 * ahead of the data (invariant 1) and a failed page's rejects vanish with it.
 */
export function writePage(context: StoreContext, input: WritePageInput): Promise<PageResult> {
  return runPage(context, input, false);
}

/** The counts `writePage` would return, from the same transaction rolled back (both dialects). */
export async function previewPage(context: StoreContext, input: WritePageInput): Promise<PageResult> {
  try {
    return await runPage(context, input, true);
  } catch (error) {
    if (error instanceof PreviewRollback) return error.result;
    throw error;
  }
}

async function runPage(context: StoreContext, input: WritePageInput, rollback: boolean): Promise<PageResult> {
  const table = context.table(input.stream);
  const scope = scopeValue(table, input.scope);
  const { rows, rejected } = context.mapper(table)(input.records, input.sequenceOf);
  const upsert = context.upsert(table);
  const deleted = input.deletedUpstream === true;
  const now = input.now.toISOString();
  const rejects = [...(input.rejected ?? []), ...rejected];
  const children = input.enqueueChildren ?? [];
  for (const child of children) context.table(child);
  return context.dialect.db.transaction().execute(async (trx) => {
    const counts = await upsert(trx, {
      groups: [{ scope, rows }],
      syncedAt: now,
      deletedAt: deleted ? now : null,
      deletedReason: deleted ? 'upstream' : null,
    });
    await context.dialect.enqueueParents(
      trx,
      children,
      rows.map((row) => row.id),
      now,
    );
    await insertRejects(trx, {
      runId: input.runId,
      stream: table.name,
      scope,
      records: rejects,
      now: input.now,
    });
    const state = input.state && (await applyTransition(trx, context.dialect.types, input.state, input.now));
    const result: PageResult = { ...counts, rejected: rejects.length, ...(state ? { state } : {}) };
    if (rollback) throw new PreviewRollback(result);
    return result;
  });
}
