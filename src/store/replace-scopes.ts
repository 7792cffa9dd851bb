import type { Transaction } from 'kysely';
import type { StoreDatabase } from './database.js';
import { markMissingIn } from './mark-missing.js';
import { insertRejects } from './rejected-records.js';
import type { ReplaceScopesInput, ReplaceScopesResult, ScopeReplacement } from './store.js';
import { type StoreContext, scopeValue } from './store-context.js';
import type { StreamTable } from './stream-tables.js';

/** Thrown inside a dry run's transaction to roll it back with the counts in hand. */
class DryRunRollback extends Error {
  constructor(readonly result: ReplaceScopesResult) {
    super('dry run rolled back');
  }
}

/**
 * Replaces the rows of many scopes (the children of a batch of parents) in ONE transaction: each
 * scope's records are upserted with its rejects, then its live rows not listed are marked
 * `snapshot_missing` (with the mass-delete guard per scope). One commit per batch instead of two
 * per parent is what makes child streams affordable on PostgreSQL.
 */
export async function replaceScopes(
  context: StoreContext,
  input: ReplaceScopesInput,
): Promise<ReplaceScopesResult> {
  const table = context.table(input.stream);
  try {
    return await context.dialect.db.transaction().execute(async (trx) => {
      const result: ReplaceScopesResult = {
        inserted: 0,
        updated: 0,
        unchanged: 0,
        staleSkipped: 0,
        rejected: 0,
        deleted: 0,
      };
      for (const part of input.scopes) addTo(result, await replaceScope(context, trx, table, part, input));
      if (input.dryRun) throw new DryRunRollback(result);
      return result;
    });
  } catch (error) {
    if (error instanceof DryRunRollback) return error.result;
    throw error;
  }
}

async function replaceScope(
  context: StoreContext,
  trx: Transaction<StoreDatabase>,
  table: StreamTable,
  part: ScopeReplacement,
  input: ReplaceScopesInput,
): Promise<ReplaceScopesResult> {
  const scope = scopeValue(table, part.scope);
  const { rows, rejected } = context.mapper(table)(part.records, input.sequenceOf);
  const now = input.now.toISOString();
  const counts = await context.upsert(table)(trx, {
    scope,
    rows,
    syncedAt: now,
    deletedAt: null,
    deletedReason: null,
  });
  const rejects = [...(part.rejected ?? []), ...rejected];
  await insertRejects(trx, {
    runId: input.runId,
    stream: table.name,
    scope,
    records: rejects,
    now: input.now,
  });
  // A record that failed validation still exists upstream: its key counts as seen.
  const seen = [
    ...rows.map((row) => row.id),
    ...rejects.flatMap((reject) => (reject.key === null ? [] : [reject.key])),
  ];
  const { deleted } = await markMissingIn(context, trx, {
    table,
    scope,
    children: [],
    seenIds: seen,
    reason: 'snapshot_missing',
    now: input.now,
    maxDeleteShare: input.maxDeleteShare,
    minGuardedDeletes: input.minGuardedDeletes,
  });
  return { ...counts, rejected: rejects.length, deleted };
}

function addTo(total: ReplaceScopesResult, part: ReplaceScopesResult): void {
  const sum = total as { -readonly [K in keyof ReplaceScopesResult]: number };
  for (const key of Object.keys(part) as Array<keyof ReplaceScopesResult>) sum[key] += part[key];
}
