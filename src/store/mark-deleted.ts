import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { StoreDatabase } from './database.js';
import { StreamUsageError } from './errors.js';
import { withHistoryContext } from './history/history-context.js';
import type { DeleteResult, MarkDeletedByScopeInput, MarkDeletedInput, StateTransition } from './store.js';
import { type StoreContext, scopeValue, streamDb } from './store-context.js';
import { type DeleteReason, idSetTable } from './store-dialect.js';
import type { StreamTable } from './stream-tables.js';
import { applyTransition } from './sync-state.js';

/** Which live rows of a table a deletion touches: a scope (or all) and an extra condition. */
export interface DeleteTarget {
  readonly table: StreamTable;
  /** One scope, a list of scopes, or null for every row of the table. */
  readonly scope: string | readonly string[] | null;
  /** @default every live row of the scope */
  readonly match?: Expression<SqlBool>;
}

/** Thrown inside a dry run's transaction to roll it back with the count in hand. */
class DryRunRollback extends Error {
  constructor(readonly deleted: number) {
    super('dry run rolled back');
  }
}

/** Marks live rows of the given ids deleted (e.g. found gone one by one), in one transaction. */
export async function markDeleted(context: StoreContext, input: MarkDeletedInput): Promise<DeleteResult> {
  const table = context.table(input.stream);
  const scope = scopeValue(table, input.scope);
  return context.dialect.db.transaction().execute((trx) =>
    withHistoryContext(context, trx, { table, runId: input.runId }, async () => {
      await context.dialect.loadIdSet(trx, input.ids);
      const target = { table, scope, match: inIdSet(table, 'id') };
      return finishDelete(context, trx, await setDeleted(trx, target, input.reason, input.now), input);
    }),
  );
}

/** Marks every live row of the given scope values deleted: the children of deleted parents. */
export async function markDeletedByScope(
  context: StoreContext,
  input: MarkDeletedByScopeInput,
): Promise<DeleteResult> {
  const table = context.table(input.stream);
  if (!table.scopeColumn) throw new StreamUsageError(table.name, 'the stream has no scope to delete by');
  const column = table.scopeColumn;
  try {
    return await context.dialect.db.transaction().execute((trx) =>
      withHistoryContext(context, trx, { table, runId: input.runId }, async () => {
        await context.dialect.loadIdSet(trx, input.scopeValues);
        const target = { table, scope: null, match: inIdSet(table, column) };
        const deleted = await setDeleted(trx, target, input.reason ?? 'parent_deleted', input.now);
        if (input.dryRun) throw new DryRunRollback(deleted);
        return finishDelete(context, trx, deleted, input);
      }),
    );
  } catch (error) {
    if (error instanceof DryRunRollback) return { deleted: error.deleted };
    throw error;
  }
}

/**
 * `column` of the row is (or with `negate`, is not) in the loaded id set; with `scoped`, the
 * (scope, id) pair of the row is (a set loaded per scope).
 */
export function inIdSet(
  table: StreamTable,
  column: string,
  { negate = false, scoped = false } = {},
): Expression<SqlBool> {
  const exists = sql.raw(negate ? 'not exists' : 'exists');
  const sameScope = scoped ? sql` and s.scope = ${sql.ref(`${table.name}.${table.scopeColumn!}`)}` : sql``;
  return sql<SqlBool>`${exists} (select 1 from ${sql.table(idSetTable)} s where s.value = ${sql.ref(`${table.name}.${column}`)}${sameScope})`;
}

/** The live rows of the target, as a condition. */
export function targetWhere({ table, scope, match }: DeleteTarget): Expression<SqlBool> {
  const parts: Expression<unknown>[] = [sql`${sql.ref(`${table.name}.deleted_at`)} is null`];
  if (scope !== null) {
    const column = sql.ref(`${table.name}.${table.scopeColumn!}`);
    parts.push(
      typeof scope === 'string' ? sql`${column} = ${scope}` : sql`${column} in (${sql.join(scope)})`,
    );
  }
  if (match) parts.push(match);
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

export async function setDeleted(
  db: Kysely<StoreDatabase>,
  target: DeleteTarget,
  reason: DeleteReason,
  now: Date,
): Promise<number> {
  const result = await streamDb(db)
    .updateTable(target.table.name)
    .set({ deleted_at: now.toISOString(), deleted_reason: reason })
    .where(targetWhere(target))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Applies the optional transition of a deletion, in its transaction. */
export async function finishDelete(
  context: StoreContext,
  trx: Kysely<StoreDatabase>,
  deleted: number,
  input: { readonly state?: StateTransition; readonly now: Date },
): Promise<DeleteResult> {
  if (!input.state) return { deleted };
  return { deleted, state: await applyTransition(trx, context.dialect.types, input.state, input.now) };
}
