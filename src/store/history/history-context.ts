import type { CompiledQuery, Kysely } from 'kysely';
import type { StoreDatabase } from '../database.js';
import type { StoreContext } from '../store-context.js';
import type { StreamTable } from '../stream-tables.js';

/** The statements that tell a table's history triggers which run writes (none without history). */
export function historyContext(
  context: StoreContext,
  table: StreamTable,
  runId: number | null | undefined,
): { before: CompiledQuery[]; after: CompiledQuery[] } {
  if (table.history === null) return { before: [], after: [] };
  const { history } = context.dialect;
  return { before: history.runContext(runId ?? null), after: history.endContext() };
}

/** Runs `write` in the transaction between the run context's statements. */
export async function withHistoryContext<T>(
  context: StoreContext,
  trx: Kysely<StoreDatabase>,
  target: { table: StreamTable; runId: number | null | undefined },
  write: () => Promise<T>,
): Promise<T> {
  const { before, after } = historyContext(context, target.table, target.runId);
  for (const statement of before) await trx.executeQuery(statement);
  const result = await write();
  for (const statement of after) await trx.executeQuery(statement);
  return result;
}
