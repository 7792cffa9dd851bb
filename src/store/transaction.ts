import type { Kysely, Transaction } from 'kysely';
import type { StoreDatabase } from './database.js';

/** Thrown inside a transaction to roll it back with its outcome in hand (`inTransaction` answers it). */
class Rollback extends Error {
  constructor(readonly outcome: unknown) {
    super('transaction rolled back');
  }
}

/**
 * Runs `work` in one transaction and commits it; with `rollback` (a dry run, decided when the run
 * opens) rolls it back and answers the same outcome. This is the one way a dry run writes nothing:
 * it does all a run does, and keeps none of it.
 */
export async function inTransaction<T>(
  db: Kysely<StoreDatabase>,
  rollback: boolean,
  work: (trx: Transaction<StoreDatabase>) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction().execute(async (trx) => {
      const outcome = await work(trx);
      if (rollback) throw new Rollback(outcome);
      return outcome;
    });
  } catch (error) {
    if (error instanceof Rollback) return error.outcome as T;
    throw error;
  }
}

/** Rolls back the transaction `inTransaction` runs, which then answers `outcome` (a refusal). */
export function rollBackWith(outcome: unknown): never {
  throw new Rollback(outcome);
}

/** How a run writes: each write one transaction under the store's retry, rolled back in a dry run. */
export type RunWrite = <T>(verb: string, work: (trx: Kysely<StoreDatabase>) => Promise<T>) => Promise<T>;
