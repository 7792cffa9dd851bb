import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { StoreDatabase } from './database.js';
import { withHistoryContext } from './history/history-context.js';
import { type StoreContext, streamDb } from './store-context.js';
import { idSetTable } from './store-dialect.js';
import { StreamUsageError } from './store-errors.js';
import type { DeleteReason } from './store-types.js';
import type { StreamTable } from './stream-tables.js';
import { inTransaction } from './transaction.js';

/** Which live rows of a table a deletion touches: a scope (or all) and an extra condition. */
export interface DeleteTarget {
  readonly table: StreamTable;
  /** One scope, a list of scopes, or null for every row of the table. */
  readonly scope: string | readonly string[] | null;
  /** @default every live row of the scope */
  readonly match?: Expression<SqlBool>;
}

/** The live rows of these scopes (parents gone upstream) to mark deleted, as a run gives them. */
export interface ScopesDeletedInput {
  readonly stream: string;
  readonly scopeValues: Iterable<string>;
  readonly now: Date;
  readonly runId: number | null;
  /** A dry run: the same transaction, rolled back, for its count. */
  readonly rollback: boolean;
}

/** Marks every live row of the given scope values `parent_deleted`: the children of deleted parents. Answers how many. */
export async function markDeletedByScope(context: StoreContext, input: ScopesDeletedInput): Promise<number> {
  const table = context.table(input.stream);
  if (!table.scopeColumn) throw new StreamUsageError(table.name, 'the stream has no scope to delete by');
  const column = table.scopeColumn;
  return inTransaction(context.dialect.db, input.rollback, (trx) =>
    withHistoryContext(context, trx, { table, runId: input.runId }, async () => {
      await context.dialect.loadIdSet(trx, input.scopeValues);
      const target = { table, scope: null, match: inIdSet(table, column) };
      return setDeleted(trx, target, 'parent_deleted', input.now);
    }),
  );
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
