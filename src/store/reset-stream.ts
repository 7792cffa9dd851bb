import { refreshAllQueries } from './child-queue.js';
import { type StoreContext, streamDb } from './store-context.js';
import { StreamUsageError } from './store-errors.js';
import { forgetState } from './sync-state.js';

export interface ResetInput {
  readonly stream: string;
  /** One partition (`1001` of `tasks`, `deleted` of `invoices`); every partition when undefined. */
  readonly partition?: string | undefined;
  /** Also delete the stream's rows (of the partition's scope), and its held deletes. @default false */
  readonly data?: boolean;
  readonly now: Date;
}

export interface ResetResult {
  /** `sync_state` rows forgotten. */
  readonly partitions: number;
  /** Stream rows deleted (`data`). */
  readonly rows: number;
}

/**
 * `tms-sync reset`, in one transaction: forgets the watermark, checkpoint and strategy state of
 * the stream's partitions (versions bumped, so a run in flight cannot commit over it), so the next
 * run is a full backfill; a child stream is marked to refresh every parent (it has no watermark to
 * forget). With `data`, the rows go too: all of the stream's, or those of the partition's scope
 * (an operator's). A partition that is no scope (`invoices/deleted`) shares its table with the
 * others: clearing its rows alone is refused (StreamUsageError).
 */
export async function resetStream(context: StoreContext, input: ResetInput): Promise<ResetResult> {
  const table = context.table(input.stream);
  const scoped = input.partition !== undefined && input.partition !== '';
  if (input.data && scoped && !table.scopeColumn) {
    throw new StreamUsageError(
      input.stream,
      `partition "${input.partition}" shares the ${input.stream} table with the stream's other partitions: clear the whole stream's rows instead`,
    );
  }
  return context.dialect.db.transaction().execute(async (trx) => {
    const partitions = await forgetState(trx, input, input.now);
    if (table.parent) {
      for (const query of refreshAllQueries(trx, [table.name], input.now.toISOString()))
        await trx.executeQuery(query);
    }
    if (!input.data) return { partitions, rows: 0 };
    const deleted = await streamDb(trx)
      .deleteFrom(table.name)
      .$if(scoped, (q) => q.where(table.scopeColumn!, '=', input.partition!))
      .executeTakeFirst();
    await trx
      .deleteFrom('held_deletes')
      .where('stream', '=', table.name)
      .$if(scoped, (q) => q.where('scope', '=', input.partition!))
      .execute();
    return { partitions, rows: Number(deleted.numDeletedRows) };
  });
}
