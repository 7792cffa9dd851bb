import { markMissingInScopes } from './mark-missing.js';
import { insertRejects, type RejectBatch } from './rejected-records.js';
import type { ReplaceScopesInput, ReplaceScopesResult } from './store.js';
import { type StoreContext, scopeValue } from './store-context.js';
import type { IdSetEntry, ScopeRows } from './store-dialect.js';

/** Thrown inside a dry run's transaction to roll it back with the counts in hand. */
class DryRunRollback extends Error {
  constructor(readonly result: ReplaceScopesResult) {
    super('dry run rolled back');
  }
}

/**
 * Replaces the rows of many scopes (the children of a batch of parents) in ONE transaction of a
 * fixed number of statements, whatever the batch size: one upsert of every scope's records, the
 * rejects, one (scope, id) set of what was seen, one grouped count for the mass-delete guard per
 * scope, and one update marking the unseen live rows `snapshot_missing`. Statements per parent
 * were what bounded child streams on PostgreSQL.
 */
export async function replaceScopes(
  context: StoreContext,
  input: ReplaceScopesInput,
): Promise<ReplaceScopesResult> {
  const table = context.table(input.stream);
  const mapper = context.mapper(table);
  const groups: ScopeRows[] = [];
  const rejectBatches: RejectBatch[] = [];
  // A record that failed validation still exists upstream: its key counts as seen.
  const seen: IdSetEntry[] = [];
  for (const part of input.scopes) {
    const scope = scopeValue(table, part.scope) as string;
    const { rows, rejected } = mapper(part.records, input.sequenceOf);
    const rejects = [...(part.rejected ?? []), ...rejected];
    groups.push({ scope, rows });
    for (const row of rows) seen.push([scope, row.id]);
    for (const reject of rejects) if (reject.key !== null) seen.push([scope, reject.key]);
    if (rejects.length > 0)
      rejectBatches.push({ runId: input.runId, stream: table.name, scope, records: rejects, now: input.now });
  }
  if (groups.length === 0)
    return { inserted: 0, updated: 0, unchanged: 0, staleSkipped: 0, rejected: 0, deleted: 0 };
  const now = input.now.toISOString();
  const upsert = context.upsert(table)({ groups, syncedAt: now, deletedAt: null, deletedReason: null });
  try {
    return await context.dialect.db.transaction().execute(async (trx) => {
      const counts = await upsert(trx);
      for (const batch of rejectBatches) await insertRejects(trx, batch);
      const deleted = await markMissingInScopes(context, trx, {
        table,
        scopes: groups.map((group) => group.scope as string),
        seen,
        now: input.now,
        maxDeleteShare: input.maxDeleteShare,
        minGuardedDeletes: input.minGuardedDeletes,
        dryRun: input.dryRun,
      });
      const rejected = rejectBatches.reduce((sum, batch) => sum + batch.records.length, 0);
      const result: ReplaceScopesResult = { ...counts, rejected, deleted };
      if (input.dryRun) throw new DryRunRollback(result);
      return result;
    });
  } catch (error) {
    if (error instanceof DryRunRollback) return error.result;
    throw error;
  }
}
