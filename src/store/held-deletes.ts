import type { Kysely } from 'kysely';
import type { StoreDatabase } from './database.js';
import type { ScopeBalance } from './delete-guard.js';
import type { StoreContext } from './store-context.js';
import type { DeleteReason } from './store-types.js';
import { toStoredDate } from './stored-values.js';

/** A scope whose deletes the guard held back, as `status` and `approve-deletes` show it. */
export interface HeldDelete {
  readonly stream: string;
  /** '' for an unscoped stream. */
  readonly scope: string;
  readonly reason: DeleteReason;
  readonly wouldDelete: number;
  readonly liveBefore: number;
  readonly liveAfter: number;
  readonly runId: number | null;
  readonly detectedAt: Date;
  /** Set by `approve-deletes`: the next pass of the scope applies its deletes. */
  readonly approvedAt: Date | null;
}

/** Which of `scopes` the guard holds for the stream, and which of those a person approved (keyed reads). */
export async function approvedScopes(
  db: Kysely<StoreDatabase>,
  stream: string,
  scopes: readonly string[],
): Promise<{ approved: Set<string>; held: Set<string> }> {
  if (scopes.length === 0) return { approved: new Set(), held: new Set() };
  const rows = await db
    .selectFrom('held_deletes')
    .select(['scope', 'approved_at'])
    .where('stream', '=', stream)
    .where('scope', 'in', scopes)
    .execute();
  return {
    approved: new Set(rows.filter((row) => row.approved_at !== null).map((row) => row.scope)),
    held: new Set(rows.map((row) => row.scope)),
  };
}

/** Records (or refreshes) the held scopes of a pass. */
export async function holdDeletes(
  db: Kysely<StoreDatabase>,
  input: {
    stream: string;
    reason: DeleteReason;
    runId: number | null;
    now: Date;
    balances: readonly ScopeBalance[];
  },
): Promise<void> {
  for (const balance of input.balances) {
    const values = {
      reason: input.reason,
      would_delete: balance.missing,
      live_before: balance.before,
      live_after: balance.after,
      run_id: input.runId,
      detected_at: input.now.toISOString(),
    };
    await db
      .insertInto('held_deletes')
      .values({ stream: input.stream, scope: balance.scope, approved_at: null, ...values })
      .onConflict((conflict) =>
        conflict.columns(['stream', 'scope']).doUpdateSet({ ...values, approved_at: null }),
      )
      .execute();
  }
}

/** Forgets held scopes a pass has settled: applied after approval, or no longer implausible. */
export async function clearHeld(db: Kysely<StoreDatabase>, stream: string, scopes: readonly string[]) {
  if (scopes.length === 0) return;
  await db.deleteFrom('held_deletes').where('stream', '=', stream).where('scope', 'in', scopes).execute();
}

/** The held scopes, of one stream or all, oldest first. */
export async function listHeldDeletes(db: Kysely<StoreDatabase>, stream?: string): Promise<HeldDelete[]> {
  const rows = await db
    .selectFrom('held_deletes')
    .selectAll()
    .$if(stream !== undefined, (q) => q.where('stream', '=', stream!))
    .orderBy('detected_at')
    .orderBy('stream')
    .orderBy('scope')
    .execute();
  return rows.map((row) => ({
    stream: row.stream,
    scope: row.scope,
    reason: row.reason as DeleteReason,
    wouldDelete: Number(row.would_delete),
    liveBefore: Number(row.live_before),
    liveAfter: Number(row.live_after),
    runId: row.run_id === null ? null : Number(row.run_id),
    detectedAt: toStoredDate(row.detected_at)!,
    approvedAt: toStoredDate(row.approved_at),
  }));
}

/** Marks held scopes approved; a child stream's scopes (its parents) join its queue for a refresh. */
export async function approveDeletes(
  context: StoreContext,
  input: { stream: string; scopes?: readonly string[]; now?: Date },
): Promise<string[]> {
  const table = context.table(input.stream);
  const at = (input.now ?? new Date()).toISOString();
  if (input.scopes?.length === 0) return [];
  return context.dialect.db.transaction().execute(async (trx) => {
    const rows = await trx
      .updateTable('held_deletes')
      .set({ approved_at: at })
      .where('stream', '=', input.stream)
      .$if(input.scopes !== undefined, (q) => q.where('scope', 'in', input.scopes!))
      .returning('scope')
      .execute();
    const scopes = rows.map((row) => row.scope);
    const isChild = table.scopeColumn !== null && table.scopeColumn !== 'operator_id';
    if (isChild && scopes.length > 0) {
      for (const query of context.dialect.enqueueParentsQueries([input.stream], scopes, at))
        await trx.executeQuery(query);
    }
    return scopes;
  });
}
