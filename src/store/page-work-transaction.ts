import type { CompiledQuery, Kysely } from 'kysely';
import type { StoreDatabase } from './database.js';
import type { PageWork, PageWorkResult } from './store-dialect.js';
import { inTransaction, rollBackWith } from './transaction.js';

/** `StoreDialect.commitPageWork` as a Kysely transaction, statement after statement (PostgreSQL). */
export function pageWorkTransaction(db: Kysely<StoreDatabase>, work: PageWork): Promise<PageWorkResult> {
  if (stateOnly(work)) return transitionAlone(db, work.transition);
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

/**
 * A page of no rows whose only write is its state (a sequence stream's run that found nothing new
 * moving its watermark; a snapshot pass kept unchanged with what its strategy learned): the
 * transition is one statement, atomic by itself, and with no row mapped there is no column to check.
 * One statement instead of five (begin, upsert, check, transition, commit).
 */
function stateOnly(work: PageWork): work is PageWork & { transition: CompiledQuery } {
  return (
    work.transition !== undefined &&
    work.rows === 0 &&
    !work.rollback &&
    work.growth === undefined &&
    work.before.length === 0 &&
    work.statements.length === 0
  );
}

async function transitionAlone(
  db: Kysely<StoreDatabase>,
  transition: CompiledQuery,
): Promise<PageWorkResult> {
  const transitionRow = (await db.executeQuery(transition)).rows[0];
  if (transitionRow === undefined) return { refused: 'state' };
  return { refused: false, counts: noCounts, transitionRow };
}

const noCounts = { inserted: 0, updated: 0, staleSkipped: 0, unchanged: 0 } as const;
