import { type CompiledQuery, type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { StoreDatabase } from './database.js';
import { statementOnce } from './statement-once.js';
import { streamDb } from './store-context.js';
import type { LeftParent, PendingChildWork } from './store-types.js';
import { storableText } from './stored-values.js';
import type { StreamTable } from './stream-tables.js';

/**
 * The child queue: parents whose children a child stream must refresh. A parent's page (through
 * the dialect's `enqueueParentsQueries`, on the hot path) or a pass marking parents missing queues their
 * ids in its own transaction, so no change is lost between the parent's run and the child's. A
 * child run takes a batch (`taken_at` set) and acks it when done; queueing a parent again clears
 * `taken_at`, so an ack never drops a change that arrived while the batch was being worked on.
 */

/** Queues the parent rows `where` selects (e.g. the rows a pass is about to mark missing), in SQL. */
export async function enqueueWhere(
  db: Kysely<StoreDatabase>,
  children: readonly string[],
  parent: StreamTable,
  where: Expression<SqlBool>,
  now: Date,
): Promise<void> {
  for (const stream of children) {
    await db
      .insertInto('child_queue')
      .columns(['stream', 'parent_id', 'queued_at', 'taken_at'])
      .expression(
        streamDb(db)
          .selectFrom(parent.name)
          .select([
            sql.lit(stream).as('stream'),
            'id',
            sql.val(now.toISOString()).as('queued_at'),
            sql.lit(null).as('taken_at'),
          ])
          .where(where),
      )
      .onConflict((oc) =>
        oc.columns(['stream', 'parent_id']).doUpdateSet({ queued_at: now.toISOString(), taken_at: null }),
      )
      .execute();
  }
}

/** Queues every row of the parent stream, live or deleted (`--full`, `--reconcile`). */
export async function enqueueAllParents(
  db: Kysely<StoreDatabase>,
  child: string,
  parent: StreamTable,
): Promise<void> {
  await enqueueWhere(db, [child], parent, sql<SqlBool>`true`, new Date());
}

/**
 * Whether the child stream has any work: a refresh-all mark or a queued parent. One read outside
 * any transaction, so a child run that finds none (most runs of a steady cycle) begins none.
 */
export async function hasChildWork(db: Kysely<StoreDatabase>, child: string): Promise<boolean> {
  const [row] = (await childWorkOf(db, { child })).rows;
  return Boolean(row?.found);
}

const childWorkOf = statementOnce((db, at: { child: string }) =>
  db.selectNoFrom((eb) =>
    eb
      .or([
        eb.exists(eb.selectFrom('child_refresh').select('stream').where('stream', '=', at.child)),
        eb.exists(eb.selectFrom('child_queue').select('stream').where('stream', '=', at.child)),
      ])
      .as('found'),
  ),
);

/** The next queued parents in id order, after `after`; marks them taken (in the caller's transaction). */
export async function pendingParents(
  trx: Kysely<StoreDatabase>,
  child: string,
  options: { limit: number; after?: string | undefined },
): Promise<string[]> {
  const rows = await trx
    .selectFrom('child_queue')
    .select('parent_id')
    .where('stream', '=', child)
    .$if(options.after !== undefined, (q) => q.where('parent_id', '>', options.after!))
    .orderBy('parent_id')
    .limit(options.limit)
    .execute();
  const ids = rows.map((row) => row.parent_id);
  if (ids.length > 0) {
    await trx
      .updateTable('child_queue')
      .set({ taken_at: new Date().toISOString() })
      .where('stream', '=', child)
      .where('parent_id', 'in', ids)
      .execute();
  }
  return ids;
}

/**
 * Marks these parents' queue entries taken (those that are queued): a refresh of every parent
 * fetching them serves the entries too, and acks them once done, so no parent is fetched twice.
 */
export async function takeParents(
  db: Kysely<StoreDatabase>,
  child: string,
  parentIds: readonly string[],
): Promise<void> {
  for (let start = 0; start < parentIds.length; start += 1000) {
    await db
      .updateTable('child_queue')
      .set({ taken_at: new Date().toISOString() })
      .where('stream', '=', child)
      .where('parent_id', 'in', parentIds.slice(start, start + 1000))
      .execute();
  }
}

/** Removes parents whose children were refreshed, unless they were queued again since they were taken. */
export async function ackParents(
  db: Kysely<StoreDatabase>,
  child: string,
  parentIds: readonly string[],
): Promise<void> {
  for (let start = 0; start < parentIds.length; start += 1000) {
    await db
      .deleteFrom('child_queue')
      .where('stream', '=', child)
      .where('parent_id', 'in', parentIds.slice(start, start + 1000))
      .where('taken_at', 'is not', null)
      .execute();
  }
}

/**
 * Keeps parents queued with the error that stopped their children (`last_error`, `failures` + 1):
 * queued if they were not (a refresh-all pass), left as they are otherwise, so the next pass of
 * this run and the next run take them again.
 */
export async function leaveParents(
  db: Kysely<StoreDatabase>,
  child: string,
  parents: readonly LeftParent[],
): Promise<void> {
  const now = new Date().toISOString();
  for (let start = 0; start < parents.length; start += 500) {
    await db
      .insertInto('child_queue')
      .values(
        parents.slice(start, start + 500).map((left) => ({
          stream: child,
          parent_id: left.parentId,
          queued_at: now,
          taken_at: null,
          last_error: storableText(left.error),
          failures: 1,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['stream', 'parent_id']).doUpdateSet((eb) => ({
          last_error: eb.ref('excluded.last_error'),
          failures: sql<number>`child_queue.failures + 1`,
        })),
      )
      .execute();
  }
}

/**
 * The statements marking child streams to refresh every live parent, in the caller's transaction
 * (the last page of a parent's full cycle): one row per child instead of an entry per parent. A
 * new mark restarts a pass in progress from the first parent.
 */
export function refreshAllQueries(
  db: Kysely<StoreDatabase>,
  children: readonly string[],
  queuedAt: string,
): CompiledQuery[] {
  return children.map((stream) =>
    db
      .insertInto('child_refresh')
      .values({ stream, queued_at: queuedAt, taken_at: null, after_id: null })
      .onConflict((oc) =>
        oc.column('stream').doUpdateSet({ queued_at: queuedAt, taken_at: null, after_id: null }),
      )
      .compile(),
  );
}

/** The pending refresh-all pass of a child stream and where it stands; `take` marks it worked on. */
export async function refreshAllPending(
  db: Kysely<StoreDatabase>,
  child: string,
  options: { take: boolean },
): Promise<{ after: string | undefined } | undefined> {
  const row = await db
    .selectFrom('child_refresh')
    .select('after_id')
    .where('stream', '=', child)
    .executeTakeFirst();
  if (!row) return undefined;
  if (options.take) {
    await db
      .updateTable('child_refresh')
      .set({ taken_at: new Date().toISOString() })
      .where('stream', '=', child)
      .execute();
  }
  return { after: row.after_id ?? undefined };
}

/**
 * Records a refresh-all pass's progress (parents up to `afterId` done), or with `afterId` undefined
 * ends the pass; neither when the child was marked again since the pass was taken (the new mark
 * stands, from the first parent).
 */
export async function advanceRefreshAll(
  db: Kysely<StoreDatabase>,
  child: string,
  afterId: string | undefined,
): Promise<void> {
  if (afterId === undefined) {
    await db
      .deleteFrom('child_refresh')
      .where('stream', '=', child)
      .where('taken_at', 'is not', null)
      .execute();
  } else {
    await db
      .updateTable('child_refresh')
      .set({ after_id: afterId })
      .where('stream', '=', child)
      .where('taken_at', 'is not', null)
      .execute();
  }
}

/**
 * Per child stream with work waiting: parents queued, those a run failed on (left, with the
 * latest error), and whether a refresh of every parent is pending.
 */
export async function pendingChildWork(db: Kysely<StoreDatabase>): Promise<PendingChildWork[]> {
  const [queued, marks, latest] = await Promise.all([
    db
      .selectFrom('child_queue')
      .select([
        'stream',
        (eb) => eb.fn.countAll<number | string>().as('parents'),
        (eb) => eb.fn.count<number | string>('last_error').as('left'),
      ])
      .groupBy('stream')
      .execute(),
    db.selectFrom('child_refresh').select('stream').execute(),
    latestErrors(db),
  ]);
  const work = new Map<string, PendingChildWork>();
  const empty = (stream: string): PendingChildWork => ({
    stream,
    queuedParents: 0,
    leftParents: 0,
    lastError: null,
    everyParent: false,
  });
  for (const row of queued) {
    work.set(row.stream, {
      ...empty(row.stream),
      queuedParents: Number(row.parents),
      leftParents: Number(row.left),
      lastError: latest.get(row.stream) ?? null,
    });
  }
  for (const row of marks)
    work.set(row.stream, { ...(work.get(row.stream) ?? empty(row.stream)), everyParent: true });
  return [...work.values()];
}

/** The error of the most recently queued left parent, per child stream. */
async function latestErrors(db: Kysely<StoreDatabase>): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('child_queue')
    .select(['stream', 'parent_id', 'last_error', 'queued_at'])
    .where('last_error', 'is not', null)
    .orderBy('queued_at', 'desc')
    .orderBy('parent_id')
    .execute();
  const latest = new Map<string, string>();
  for (const row of rows)
    if (!latest.has(row.stream)) latest.set(row.stream, `parent ${row.parent_id}: ${row.last_error}`);
  return latest;
}
