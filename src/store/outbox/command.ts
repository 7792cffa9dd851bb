/**
 * A write-back command (docs/write-back.md): what a user's accounting system asks the TMS to do,
 * kept in the store's outbox (`tms_commands`) until it is delivered.
 */

/** Where a command stands. `done`, `failed` and `needs_review` are final (a person may reopen one). */
export const commandStatuses = ['pending', 'in_flight', 'done', 'failed', 'needs_review'] as const;
export type CommandStatus = (typeof commandStatuses)[number];

export function isCommandStatus(value: string): value is CommandStatus {
  return (commandStatuses as readonly string[]).includes(value);
}

/** A command as its author writes it: the CLI, a JSON file, or the columns of a plain SQL insert. */
export interface CommandInput {
  readonly kind: string;
  /** The invoice or client id the command acts on; none for `create_client`. @default null */
  readonly target?: string | null | undefined;
  /** The JSON body (a payment, a merge-patch, a new client); a JSON object. @default null */
  readonly body?: unknown;
  /** Fields of the body (dotted paths) that identify the record a create makes. @default the kind's */
  readonly match?: readonly string[] | null | undefined;
}

/** A row of the outbox, decoded alike on both dialects. */
export interface Command {
  readonly id: number;
  readonly kind: string;
  readonly target: string | null;
  /** The body as stored; undefined when it could not be decoded (`bodyProblem` says why). */
  readonly body: unknown;
  readonly bodyProblem: string | undefined;
  /** As stored (`match_fields`, comma-separated), split; null when the row names none. */
  readonly match: readonly string[] | null;
  readonly status: string;
  /** Deliveries begun (claims), read-backs included. */
  readonly attempts: number;
  readonly lastError: string | null;
  /** The id of the record a create made: from the TMS's answer, or found by reading back. */
  readonly createdId: string | null;
  /** Set once the command was checked (admitted); commands of one lane go one at a time, in id order. */
  readonly lane: string | null;
  /** An attempt may have reached the TMS and its outcome is unknown. */
  readonly inDoubt: boolean;
  /** Ids of matching records before the create's first send (never taken for its own). */
  readonly seenBefore: readonly string[] | null;
  readonly owner: string | null;
  readonly leaseUntil: Date | null;
  readonly nextAttemptAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}
