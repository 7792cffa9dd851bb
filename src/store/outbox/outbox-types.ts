import type { Command, CommandInput, CommandStatus } from './command.js';

/** What the admission check answers for one command (src/write-back/admit-command.ts). */
export type CommandChecker = (
  command: Command,
) => { ok: true; lane: string; match: readonly string[] | null } | { ok: false; problem: string };

export interface ClaimInput {
  /** Who delivers: a process id; stored while the command is in flight. */
  readonly owner: string;
  readonly now: Date;
  /** The lease: another deliverer takes the command over once it passed. */
  readonly leaseUntil: Date;
  readonly limit: number;
}

/** How a delivery attempt ended, as the outbox records it (compare-and-set on the owner). */
export interface Settlement {
  readonly status: Exclude<CommandStatus, 'in_flight'>;
  readonly now: Date;
  readonly attempts: number;
  readonly inDoubt: boolean;
  readonly lastError?: string | null;
  readonly createdId?: string | null;
  /** `pending`: not before this. */
  readonly nextAttemptAt?: Date | null;
  /** `done`: child streams that refresh the target's children (their queue, in the same transaction). */
  readonly refresh?: { readonly children: readonly string[]; readonly parentId: string };
}

export interface CommandCount {
  readonly status: string;
  readonly kind: string;
  readonly count: number;
}

export interface CommandFilter {
  /** @default every status */
  readonly status?: string | undefined;
  /** Newest first, at most this many. @default 100 */
  readonly limit?: number | undefined;
  readonly ids?: readonly number[] | undefined;
}

/**
 * The outbox `tms_commands` (docs/write-back.md), the same on both dialects. Every change a
 * deliverer makes to a command it holds is a compare-and-set on its owner and `in_flight`: a
 * deliverer whose lease was taken over changes nothing.
 */
export interface CommandOutbox {
  /** Inserts commands (checked by the caller) as `pending`; answers their ids. */
  add(commands: readonly CommandInput[]): Promise<number[]>;
  /** Checks the commands no deliverer looked at yet: admitted ones get their lane, bad ones fail with the reason. */
  admit(check: CommandChecker, now: Date): Promise<{ admitted: number; refused: number }>;
  /** Takes up to `limit` deliverable commands: the first pending one of each lane, or one whose lease expired. */
  claim(input: ClaimInput): Promise<Command[]>;
  /** Extends the lease; false when the command is no longer this owner's. */
  renew(id: number, owner: string, leaseUntil: Date): Promise<boolean>;
  /** Records that a send is about to go out (the command is in doubt until settled); false when the lease is lost. */
  beginSend(
    id: number,
    owner: string,
    change: { now: Date; seenBefore?: readonly string[] | undefined },
  ): Promise<boolean>;
  settle(id: number, owner: string, settlement: Settlement): Promise<boolean>;
  list(filter?: CommandFilter): Promise<Command[]>;
  counts(): Promise<CommandCount[]>;
  /** A person's decision on a final command: `done` (with the record's id), `failed`, or `pending` to deliver it again. */
  resolve(
    id: number,
    to: 'done' | 'failed' | 'pending',
    note: string,
    createdId?: string,
  ): Promise<Command | undefined>;
  /** When the next waiting command becomes deliverable (a retry's time, a lease's end); null when none waits. */
  nextDue(): Promise<Date | null>;
  /** Whether a delivery pass has work now: a command to admit, to deliver, or whose deliverer's lease passed. */
  due(now: Date): Promise<boolean>;
  /** PostgreSQL, in a schema of its own: `due` of the outboxes of one database is asked in one statement. */
  readonly sharedDatabase?: SharedDatabaseOutbox | undefined;
}

/** An outbox in one schema of a PostgreSQL database that other stores of the process also use. */
export interface SharedDatabaseOutbox {
  /** Equal for the outboxes of one database (its URL: a key, never shown). */
  readonly database: string;
  readonly schema: string;
  /** The schemas among `schemas` (of this database) whose outbox has work now. */
  dueAmong(schemas: readonly string[], now: Date): Promise<Set<string>>;
}
