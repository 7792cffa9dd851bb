import type { Kysely } from 'kysely';
import type { StoreDatabase } from './database.js';
import type { PageWork, PageWorkResult } from './store-dialect.js';
import { inTransaction, rollBackWith } from './transaction.js';

/** `StoreDialect.commitPageWork` as a Kysely transaction, statement after statement (PostgreSQL). */
export function pageWorkTransaction(db: Kysely<StoreDatabase>, work: PageWork): Promise<PageWorkResult> {
  return inTransaction<PageWorkResult>(db, work.rollback, async (trx) => {
    if (work.growth) {
      if ((await trx.executeQuery(work.growth.claim)).rows.length === 0) rollBackWith({ refused: 'schema' });
      for (const statement of work.growth.statements) await trx.executeQuery(statement);
    }
    const counts = await missingColumnAsSchema(async () => {
      for (const statement of work.before) await trx.executeQuery(statement);
      const written = await work.upsert(trx);
      for (const statement of work.statements) await trx.executeQuery(statement);
      return written;
    });
    // Last, not first: a growth that commits while this transaction waits on its lock must be seen.
    if (work.check && (await trx.executeQuery(work.check)).rows.length === 0)
      rollBackWith({ refused: 'schema' });
    const transitionRow = work.transition ? (await trx.executeQuery(work.transition)).rows[0] : undefined;
    if (work.transition && transitionRow === undefined) rollBackWith({ refused: 'state' });
    return { refused: false, counts, transitionRow };
  });
}

/** PostgreSQL's undefined_column: the rows were mapped with a version whose growth rolled back. */
async function missingColumnAsSchema<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as { code?: unknown }).code === '42703') rollBackWith({ refused: 'schema' });
    throw error;
  }
}
