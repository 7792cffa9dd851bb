import type { Kysely } from 'kysely';
import type { StoreDatabase } from '../database.js';
import type { Command, CommandInput } from './command.js';
import type { CommandRow } from './command-rows.js';
import type { CommandCount, CommandFilter } from './outbox-types.js';

type Decode = (row: CommandRow) => Command;

/** Inserts commands as `pending`, in one transaction; answers their ids. */
export function addCommands(db: Kysely<StoreDatabase>, commands: readonly CommandInput[]): Promise<number[]> {
  return db.transaction().execute(async (trx) => {
    const ids: number[] = [];
    for (const command of commands) {
      const row = await trx
        .insertInto('tms_commands')
        .values({
          kind: command.kind,
          target: command.target ?? null,
          body: command.body === undefined ? null : JSON.stringify(command.body),
          match_fields: command.match?.length ? command.match.join(',') : null,
          last_error: null,
          created_id: null,
          lane: null,
          seen_before: null,
          owner: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids.push(Number(row.id));
    }
    return ids;
  });
}

export async function listCommands(db: Kysely<StoreDatabase>, decode: Decode, filter: CommandFilter = {}) {
  const rows = await db
    .selectFrom('tms_commands')
    .selectAll()
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .$if(filter.ids !== undefined, (q) => q.where('id', 'in', filter.ids!.length ? [...filter.ids!] : [-1]))
    .orderBy('id', 'desc')
    .limit(filter.limit ?? 100)
    .execute();
  return rows.map(decode);
}

export async function countCommands(db: Kysely<StoreDatabase>): Promise<CommandCount[]> {
  const rows = await db
    .selectFrom('tms_commands')
    .select(['status', 'kind', (eb) => eb.fn.countAll<number | string>().as('count')])
    .groupBy(['status', 'kind'])
    .orderBy('status')
    .orderBy('kind')
    .execute();
  return rows.map((row) => ({ status: row.status, kind: row.kind, count: Number(row.count) }));
}

/** The earliest retry time of a pending command or lease end of one in flight; null when none waits. */
export async function nextDue(db: Kysely<StoreDatabase>): Promise<Date | null> {
  const row = await db
    .selectFrom('tms_commands')
    .select((eb) => [
      eb.fn.min('next_attempt_at').filterWhere('status', '=', 'pending').as('retry'),
      eb.fn.min('lease_until').filterWhere('status', '=', 'in_flight').as('lease'),
    ])
    .executeTakeFirst();
  const times = [row?.retry, row?.lease]
    .filter((value) => value != null)
    .map((value) => new Date(value as string | Date).getTime());
  return times.length ? new Date(Math.min(...times)) : null;
}

/** A person's decision on a command that needs review or failed (`tms-sync command resolve`). */
export async function resolveCommand(
  db: Kysely<StoreDatabase>,
  decode: Decode,
  decision: { id: number; to: 'done' | 'failed' | 'pending'; note: string; createdId?: string | undefined },
): Promise<Command | undefined> {
  const row = await db
    .updateTable('tms_commands')
    .set({
      status: decision.to,
      last_error: decision.note,
      in_doubt: 0,
      next_attempt_at: null,
      updated_at: new Date().toISOString(),
      ...(decision.to === 'done' ? { created_id: decision.createdId ?? null } : {}),
      // Delivered again from scratch: its lane and match key are checked again.
      ...(decision.to === 'pending' ? { lane: null, attempts: 0 } : {}),
    })
    .where('id', '=', decision.id)
    .where('status', 'in', ['needs_review', 'failed'])
    .returningAll()
    .executeTakeFirst();
  return row && decode(row);
}
