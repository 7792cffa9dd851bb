import type { Kysely } from 'kysely';
import type { StoreDatabase } from '../database.js';
import type { StoreDialect } from '../store-dialect.js';
import type { Settlement } from './outbox-types.js';

/** A compare-and-set on a command this owner holds in flight: a deliverer whose lease was taken over changes nothing. */
function held(db: Kysely<StoreDatabase>, id: number, owner: string) {
  return db
    .updateTable('tms_commands')
    .where('id', '=', id)
    .where('owner', '=', owner)
    .where('status', '=', 'in_flight');
}

export async function renewLease(db: Kysely<StoreDatabase>, id: number, owner: string, leaseUntil: Date) {
  const result = await held(db, id, owner).set({ lease_until: leaseUntil.toISOString() }).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks the command in doubt before a send (and keeps the matches seen before a create's first send). */
export async function beginSend(
  db: Kysely<StoreDatabase>,
  id: number,
  owner: string,
  change: { now: Date; seenBefore?: readonly string[] | undefined },
) {
  const result = await held(db, id, owner)
    .set({
      in_doubt: 1,
      updated_at: change.now.toISOString(),
      ...(change.seenBefore ? { seen_before: JSON.stringify(change.seenBefore) } : {}),
    })
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records how an attempt ended and releases the command; a done one's target joins its child streams' queue, in the same transaction. */
export function settleCommand(dialect: StoreDialect, id: number, owner: string, settlement: Settlement) {
  return dialect.db.transaction().execute(async (trx) => {
    const result = await held(trx, id, owner)
      .set({
        status: settlement.status,
        attempts: settlement.attempts,
        in_doubt: settlement.inDoubt ? 1 : 0,
        last_error: settlement.lastError ?? null,
        created_id: settlement.createdId ?? null,
        next_attempt_at: settlement.nextAttemptAt?.toISOString() ?? null,
        owner: null,
        lease_until: null,
        updated_at: settlement.now.toISOString(),
      })
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    const { refresh } = settlement;
    if (refresh) {
      const at = settlement.now.toISOString();
      for (const query of dialect.enqueueParentsQueries(refresh.children, [refresh.parentId], at))
        await trx.executeQuery(query);
    }
    return true;
  });
}
