import type { CommandSettings } from '../../config/command-settings.js';
import type { TmsClient } from '../client/index.js';
import type { StopSignal } from '../linked-signals.js';
import type { Logger } from '../logger.js';
import type { Command, CommandStatus } from '../store/outbox/command.js';
import type { CommandOutbox, Settlement } from '../store/store.js';
import { attemptCommand, type Outcome } from './command-attempt.js';
import { isCommandKind, kindOf } from './command-kinds.js';
import { holdLease } from './command-lease.js';
import { describeFailure } from './describe-failure.js';

export interface DeliveryContext {
  readonly client: TmsClient;
  readonly outbox: CommandOutbox;
  /** This deliverer (process), as `owner` of the commands it holds. */
  readonly owner: string;
  readonly settings: CommandSettings;
  readonly logger: Logger;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /** Jitter of the retry wait. @default Math.random */
  readonly random?: () => number;
  /** The process stopping. @default none */
  readonly signal?: StopSignal | undefined;
}

/** What became of one claimed command. */
export interface Delivery {
  readonly command: Command;
  /** The status it was left in; undefined when its lease was lost (another deliverer has it). */
  readonly status: Exclude<CommandStatus, 'in_flight'> | undefined;
  /** The TMS cannot be reached or refused the token: delivering should stop for now. */
  readonly halted: unknown;
}

/** One attempt at a claimed command under its lease, and its outcome recorded (compare-and-set). */
export async function deliverCommand(context: DeliveryContext, command: Command): Promise<Delivery> {
  const now = context.now ?? (() => new Date());
  const lease = holdLease({
    outbox: context.outbox,
    id: command.id,
    owner: context.owner,
    leaseMs: context.settings.leaseMs,
    now,
    signal: context.signal,
  });
  let outcome: Outcome;
  try {
    outcome = await attemptCommand(
      { client: context.client, outbox: context.outbox, owner: context.owner, now, signal: lease.signal },
      command,
    );
  } finally {
    lease.stop();
  }
  const log = context.logger.child({ command: command.id, kind: command.kind, target: command.target });
  if (outcome.kind === 'lost') {
    log.warn('command taken over by another deliverer; nothing recorded here');
    return { command, status: undefined, halted: undefined };
  }
  const settlement = settlementOf(context, command, outcome, now());
  const kept = await context.outbox.settle(command.id, context.owner, settlement);
  log.info(
    { status: settlement.status, attempts: settlement.attempts, error: settlement.lastError },
    'command delivery ended',
  );
  return {
    command,
    status: kept ? settlement.status : undefined,
    halted: outcome.kind === 'halt' ? outcome.error : undefined,
  };
}

function settlementOf(
  context: DeliveryContext,
  command: Command,
  outcome: Exclude<Outcome, { kind: 'lost' }>,
  now: Date,
): Settlement {
  const base = { now, attempts: command.attempts };
  switch (outcome.kind) {
    case 'done':
      return {
        ...base,
        status: 'done',
        inDoubt: false,
        createdId: outcome.createdId,
        lastError: outcome.note ?? null,
        refresh: refreshOf(command),
      };
    case 'refused':
      return {
        ...base,
        status: 'failed',
        inDoubt: false,
        lastError: withNote(describeFailure(outcome.error), outcome.note),
      };
    case 'review':
      return { ...base, status: 'needs_review', inDoubt: true, lastError: outcome.reason };
    case 'halt':
      // The TMS's state or the token, not the command: the attempt does not count.
      return {
        ...base,
        status: 'pending',
        inDoubt: outcome.inDoubt,
        attempts: command.attempts - 1,
        lastError: describeFailure(outcome.error),
      };
    case 'again':
      return again(context, command, outcome, base);
  }
}

/** Tried again after a wait, or given up after `maxAttempts`: `needs_review` if an attempt may have been applied, else `failed`. */
function again(
  context: DeliveryContext,
  command: Command,
  outcome: Extract<Outcome, { kind: 'again' }>,
  base: { now: Date; attempts: number },
): Settlement {
  const error = describeFailure(outcome.error);
  const { maxAttempts, retryMs } = context.settings;
  if (command.attempts >= maxAttempts) {
    const status = outcome.inDoubt ? 'needs_review' : 'failed';
    return {
      ...base,
      status,
      inDoubt: outcome.inDoubt,
      lastError: `gave up after ${command.attempts} attempts (COMMANDS_MAX_ATTEMPTS): ${error}`,
    };
  }
  const waitMs =
    Math.min(retryMs * 64, retryMs * 2 ** (command.attempts - 1)) *
    (0.5 + (context.random ?? Math.random)() / 2);
  return {
    ...base,
    status: 'pending',
    inDoubt: outcome.inDoubt,
    lastError: error,
    nextAttemptAt: new Date(base.now.getTime() + waitMs),
  };
}

/** After `done`: the target's children join their child streams' queue, so the mirror refreshes them. */
function refreshOf(command: Command): Settlement['refresh'] {
  if (!isCommandKind(command.kind) || !command.target) return undefined;
  const children = kindOf(command.kind).children;
  return children?.length ? { children, parentId: command.target } : undefined;
}

function withNote(text: string, note: string | undefined): string {
  return note ? `${text} (${note})` : text;
}
