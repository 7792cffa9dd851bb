import type { Kysely } from 'kysely';
import type { StoreDatabase } from './database.js';
import type { PageWork, PageWorkResult } from './store-dialect.js';

/** Thrown inside the transaction to roll it back with the outcome in hand. */
class Rollback extends Error {
  constructor(readonly result: PageWorkResult) {
    super('page transaction rolled back');
  }
}

/** `StoreDialect.commitPageWork` as a Kysely transaction, statement after statement (PostgreSQL). */
export async function pageWorkTransaction(
  db: Kysely<StoreDatabase>,
  work: PageWork,
): Promise<PageWorkResult> {
  try {
    return await db.transaction().execute(async (trx) => {
      if (work.growth) {
        if ((await trx.executeQuery(work.growth.claim)).rows.length === 0)
          throw new Rollback({ refused: 'schema' });
        for (const statement of work.growth.statements) await trx.executeQuery(statement);
      }
      for (const statement of work.before) await trx.executeQuery(statement);
      const counts = await work.upsert(trx);
      for (const statement of work.statements) await trx.executeQuery(statement);
      if (work.check && (await trx.executeQuery(work.check)).rows.length === 0)
        throw new Rollback({ refused: 'schema' });
      const transitionRow = work.transition ? (await trx.executeQuery(work.transition)).rows[0] : undefined;
      if (work.transition && transitionRow === undefined) throw new Rollback({ refused: 'state' });
      const result: PageWorkResult = { refused: false, counts, transitionRow };
      if (work.rollback) throw new Rollback(result);
      return result;
    });
  } catch (error) {
    if (error instanceof Rollback) return error.result;
    throw error;
  }
}
