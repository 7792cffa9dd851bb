import { noScopes } from './delete-guard.js';
import { historyContext } from './history/history-context.js';
import { markMissingInScopes } from './mark-missing.js';
import { prepareRows } from './prepare-rows.js';
import { type StoreContext, scopeValue } from './store-context.js';
import type { IdSetEntry } from './store-dialect.js';
import { SchemaMovedError } from './store-errors.js';
import type { DeleteGuard, ScopeReplacement, ScopeTally, UpsertCounts } from './store-types.js';
import { inTransaction, rollBackWith } from './transaction.js';

/** A batch of child scopes' complete lists, as a run gives it (`PartitionRun.replaceScopes`). */
export interface ReplaceScopesInput {
  readonly stream: string;
  readonly scopes: readonly ScopeReplacement[];
  readonly now: Date;
  readonly runId: number | null;
  /** The mass-delete guard, judging the batch (delete-guard.ts). @default defaultDeleteGuard */
  readonly guard?: DeleteGuard | undefined;
  /** The scopes the run's earlier batches judged: the guard counts emptied scopes over the run. @default none */
  readonly earlier?: ScopeTally;
  /** A dry run: the same transaction, rolled back, for its counts. */
  readonly rollback: boolean;
}

export interface ReplaceScopesResult extends UpsertCounts {
  readonly drift: number;
  readonly deleted: number;
  /** Rows the guard kept live (their scopes are in `held_deletes`). */
  readonly held: number;
  /** What this batch adds to the run's tally of judged scopes. */
  readonly scopes: ScopeTally;
}

const schemaAttempts = 5;
const nothing = {
  inserted: 0,
  updated: 0,
  unchanged: 0,
  staleSkipped: 0,
  drift: 0,
  deleted: 0,
  held: 0,
  scopes: noScopes,
};

/**
 * Replaces the rows of many scopes (the children of a batch of parents) in ONE transaction of a
 * fixed number of statements, whatever the batch size: new typed columns if the records bring
 * new fields, one (scope, id) set of what was seen, one grouped count that the guard judges
 * (delete-guard.ts: a replaced list is no mass delete, emptied scopes in numbers are), one upsert
 * of every scope's records, and one update marking the unseen live rows `snapshot_missing`.
 */
export async function replaceScopes(
  context: StoreContext,
  input: ReplaceScopesInput,
): Promise<ReplaceScopesResult> {
  if (input.scopes.length === 0) return nothing;
  const table = context.table(input.stream);
  const parts = input.scopes.map((part) => ({ scope: scopeValue(table, part.scope), records: part.records }));
  for (let attempt = 1; attempt <= schemaAttempts; attempt++) {
    const result = await attemptReplace(context, input, parts);
    if (result !== 'schema') return result;
    await context.schemas.reload(input.stream);
  }
  throw new SchemaMovedError(input.stream, schemaAttempts);
}

async function attemptReplace(
  context: StoreContext,
  input: ReplaceScopesInput,
  parts: ReadonlyArray<{ scope: string | null; records: ReplaceScopesInput['scopes'][number]['records'] }>,
): Promise<ReplaceScopesResult | 'schema'> {
  const prepared = prepareRows(context, input.stream, parts, input.now);
  const listed = new Map<string, number>();
  const seen: IdSetEntry[] = [];
  for (const group of prepared.groups) {
    listed.set(group.scope!, group.rows.length);
    for (const row of group.rows) seen.push([group.scope!, row.id]);
  }
  const upsert = context.upsert(prepared.table)({
    groups: prepared.groups,
    syncedAt: input.now.toISOString(),
    deletedAt: null,
    deletedReason: null,
    runId: input.runId,
  });
  let outcome: ReplaceScopesResult | 'schema';
  try {
    await prepared.ready();
    outcome = await inTransaction<ReplaceScopesResult | 'schema'>(
      context.dialect.db,
      input.rollback,
      async (trx) => {
        if (prepared.growth) {
          if ((await trx.executeQuery(prepared.growth.claim)).rows.length === 0) rollBackWith('schema');
          for (const statement of prepared.growth.statements) await trx.executeQuery(statement);
        }
        const history = historyContext(context, prepared.table, input.runId);
        for (const statement of history.before) await trx.executeQuery(statement);
        const missing = await markMissingInScopes(context, trx, {
          ...input,
          table: prepared.table,
          listed,
          seen,
        });
        const counts = await upsert(trx);
        for (const statement of prepared.statements) await trx.executeQuery(statement);
        if (prepared.check && (await trx.executeQuery(prepared.check)).rows.length === 0)
          rollBackWith('schema');
        const deleted = await missing.apply();
        for (const statement of history.after) await trx.executeQuery(statement);
        return { ...counts, drift: prepared.drift, deleted, held: missing.held, scopes: missing.scopes };
      },
    );
  } catch (error) {
    await prepared.settle(false);
    throw error;
  }
  await prepared.settle(outcome !== 'schema' && !input.rollback);
  return outcome;
}
