import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { StoreDatabase } from '../database.js';
import type { Command } from './command.js';
import type { CommandRow } from './command-rows.js';
import type { ClaimInput, CommandChecker } from './outbox-types.js';

type Commands = ExpressionBuilder<StoreDatabase, 'tms_commands'>;

const batchSize = 500;

/**
 * Deliverable now: admitted, and pending past its retry time, or in flight with its lease passed
 * (its deliverer died or stalled: the command is taken over, and is in doubt if it was being sent).
 */
function deliverable(eb: Commands, now: string) {
  return eb.and([
    eb('lane', 'is not', null),
    eb.or([
      eb.and([
        eb('status', '=', 'pending'),
        eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]),
      ]),
      eb.and([eb('status', '=', 'in_flight'), eb('lease_until', '<', now)]),
    ]),
  ]);
}

/** The deliverable commands that lead their lane: no earlier command of the lane is still pending or in flight. */
function claimable(db: Kysely<StoreDatabase>, now: Date, limit: number): Promise<CommandRow[]> {
  const at = now.toISOString();
  return db
    .selectFrom('tms_commands as c')
    .selectAll('c')
    .where((eb) =>
      eb.and([
        deliverable(eb as unknown as Commands, at),
        eb.not(
          eb.exists(
            eb
              .selectFrom('tms_commands as e')
              .select('e.id')
              .whereRef('e.lane', '=', 'c.lane')
              .whereRef('e.id', '<', 'c.id')
              .where('e.status', 'in', ['pending', 'in_flight']),
          ),
        ),
      ]),
    )
    .orderBy('c.id')
    .limit(limit)
    .execute();
}

/**
 * Takes up to `limit` commands that lead their lane, each with a compare-and-set: a command another
 * deliverer claimed meanwhile is left to it.
 */
export async function claimCommands(
  db: Kysely<StoreDatabase>,
  decode: (row: CommandRow) => Command,
  input: ClaimInput,
): Promise<Command[]> {
  const now = input.now.toISOString();
  const claimed: Command[] = [];
  for (const candidate of await claimable(db, input.now, input.limit)) {
    const row = await db
      .updateTable('tms_commands')
      .set({
        status: 'in_flight',
        owner: input.owner,
        lease_until: input.leaseUntil.toISOString(),
        attempts: sql`attempts + 1`,
        updated_at: now,
      })
      .where('id', '=', Number(candidate.id))
      .where((eb) => deliverable(eb, now))
      .returningAll()
      .executeTakeFirst();
    if (row) claimed.push(decode(row));
  }
  return claimed;
}

/**
 * Checks every command no deliverer looked at yet (`lane` null), in id order and in batches: the
 * ones fit to deliver get their lane and match key, the others fail with the reason, so a bad row
 * inserted by SQL never blocks the queue.
 */
export async function admit(
  db: Kysely<StoreDatabase>,
  decode: (row: CommandRow) => Command,
  check: CommandChecker,
  now: Date,
): Promise<{ admitted: number; refused: number }> {
  const tally = { admitted: 0, refused: 0 };
  for (;;) {
    const rows = await db
      .selectFrom('tms_commands')
      .selectAll()
      .where('status', '=', 'pending')
      .where('lane', 'is', null)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    if (rows.length === 0) return tally;
    await db.transaction().execute(async (trx) => {
      for (const row of rows) {
        const verdict = check(decode(row));
        const base = trx.updateTable('tms_commands').where('id', '=', row.id).where('lane', 'is', null);
        if (verdict.ok) {
          await base.set({ lane: verdict.lane, match_fields: verdict.match?.join(',') ?? null }).execute();
          tally.admitted++;
        } else {
          await base
            .set({
              status: 'failed',
              last_error: `refused: ${verdict.problem}`,
              updated_at: now.toISOString(),
            })
            .execute();
          tally.refused++;
        }
      }
    });
  }
}
