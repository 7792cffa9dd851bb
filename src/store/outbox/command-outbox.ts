import type { StoreDialect } from '../store-dialect.js';
import { admit, claimCommands } from './claim-commands.js';
import { type CommandRow, decodeCommand } from './command-rows.js';
import { hasDue, schemasWithDue } from './due-commands.js';
import { beginSend, renewLease, settleCommand } from './held-commands.js';
import type { CommandOutbox } from './outbox-types.js';
import { addCommands, countCommands, listCommands, nextDue, resolveCommand } from './read-commands.js';

export function createCommandOutbox(dialect: StoreDialect): CommandOutbox {
  const { db, types } = dialect;
  const decode = (row: CommandRow) => decodeCommand(row, types);
  return {
    add: (commands) => addCommands(db, commands),
    admit: (check, now) => admit(db, decode, check, now),
    claim: (input) => claimCommands(db, decode, input),
    renew: (id, owner, leaseUntil) => renewLease(db, id, owner, leaseUntil),
    beginSend: (id, owner, change) => beginSend(db, id, owner, change),
    settle: (id, owner, settlement) => settleCommand(dialect, id, owner, settlement),
    list: (filter) => listCommands(db, decode, filter),
    counts: () => countCommands(db),
    resolve: (id, to, note, createdId) => resolveCommand(db, decode, { id, to, note, createdId }),
    nextDue: () => nextDue(db),
    due: (now) => hasDue(db, now),
    sharedDatabase:
      dialect.database !== undefined && dialect.schema !== undefined
        ? {
            database: dialect.database,
            schema: dialect.schema,
            dueAmong: (schemas, now) => schemasWithDue(db, schemas, now),
          }
        : undefined,
  };
}

/** Every verb under the store's retry (store-retry.ts): each is one statement or one transaction. */
export function retriedOutbox(
  outbox: CommandOutbox,
  retried: <R>(verb: string, run: () => Promise<R>) => Promise<R>,
): CommandOutbox {
  const wrapped: Record<string, unknown> = {};
  for (const [name, verb] of Object.entries(outbox) as Array<[string, unknown]>)
    wrapped[name] =
      typeof verb === 'function'
        ? (...args: unknown[]) => retried(`commands.${name}`, () => verb(...args))
        : verb;
  return wrapped as unknown as CommandOutbox;
}
