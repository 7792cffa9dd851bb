import { restRequest } from '../client/api-calls.js';
import {
  AmbiguousWriteError,
  AuthError,
  BreakerOpenError,
  HttpStatusError,
  NetworkError,
  ResponseTooLargeError,
  ResponseValidationError,
  type TmsClient,
} from '../client/index.js';
import { buildPath } from '../client/request-path.js';
import type { StopSignal } from '../linked-signals.js';
import type { Command } from '../store/outbox/command.js';
import type { CommandOutbox } from '../store/store.js';
import { type CommandKindDefinition, isCommandKind, kindOf } from './command-kinds.js';
import { describeFailure } from './describe-failure.js';
import { idOf, matchingBefore, readBack } from './read-back.js';
import { readEffect } from './read-effect.js';

/** How one delivery attempt ended; deliver-command.ts records it. */
export type Outcome =
  | { readonly kind: 'done'; readonly createdId: string | null; readonly note?: string }
  /** The TMS refused the command (a 4xx other than 401/429): it failed, with the TMS's answer. */
  | { readonly kind: 'refused'; readonly error: unknown; readonly note?: string }
  /** Applied or not, nobody can tell: a person must look. */
  | { readonly kind: 'review'; readonly reason: string }
  /** Not delivered this time; `inDoubt` when an attempt may have been applied. */
  | { readonly kind: 'again'; readonly error: unknown; readonly inDoubt: boolean }
  /** The TMS cannot be reached or refuses the token: nothing of this command's doing; stop delivering. */
  | { readonly kind: 'halt'; readonly error: unknown; readonly inDoubt: boolean }
  /** Another deliverer holds the command now: nothing may be recorded. */
  | { readonly kind: 'lost' };

export interface AttemptContext {
  readonly client: TmsClient;
  readonly outbox: Pick<CommandOutbox, 'beginSend'>;
  readonly owner: string;
  readonly now: () => Date;
  /** Aborted when the lease is lost or the process stops. */
  readonly signal: StopSignal;
}

/**
 * One attempt at a claimed command. A create in doubt is first looked for (read-back.ts): found,
 * it is done; not found, it is sent again; undecidable, it needs review. It is never sent blindly
 * twice. An idempotent kind is sent again; a 409 or 404 after an attempt in doubt is resolved by
 * reading the target's state (read-effect.ts). Every send is preceded by marking the command in
 * doubt (a compare-and-set on this deliverer's lease), so a deliverer killed mid-send leaves a
 * command the next one reads back before anything else.
 */
export async function attemptCommand(context: AttemptContext, command: Command): Promise<Outcome> {
  if (!isCommandKind(command.kind)) return { kind: 'review', reason: `unknown kind ${command.kind}` };
  const kind = kindOf(command.kind);
  try {
    return kind.create
      ? await attemptCreate(context, command, kind)
      : await attemptIdempotent(context, command, kind);
  } catch (error) {
    // A read before any send failed: nothing new was applied.
    return classify(error, command.inDoubt);
  }
}

async function attemptCreate(
  context: AttemptContext,
  command: Command,
  kind: CommandKindDefinition,
): Promise<Outcome> {
  const create = kind.create!;
  if (command.inDoubt) {
    const found = await readBack(context.client, command, create, context.signal);
    if ('review' in found) return { kind: 'review', reason: found.review };
    if (found.found)
      return { kind: 'done', createdId: found.id, note: 'found by reading back after an attempt in doubt' };
  }
  const seenBefore =
    create.seenBefore && command.seenBefore === null
      ? await matchingBefore(context.client, command, create, context.signal)
      : undefined;
  return send(context, command, kind, { seenBefore, inDoubtBefore: false });
}

async function attemptIdempotent(
  context: AttemptContext,
  command: Command,
  kind: CommandKindDefinition,
): Promise<Outcome> {
  const outcome = await send(context, command, kind, {
    seenBefore: undefined,
    inDoubtBefore: command.inDoubt,
  });
  if (outcome.kind !== 'refused' || !command.inDoubt || !kind.effect) return outcome;
  const status = outcome.error instanceof HttpStatusError ? outcome.error.status : 0;
  if (status !== 404 && status !== 409) return outcome;
  try {
    const effect = await readEffect(context.client, command, kind.effect, context.signal);
    const note = `answered ${status} after an attempt in doubt; ${effect.seen}`;
    if (effect.holds === 'same') return { kind: 'done', createdId: null, note };
    if (effect.holds === 'different') return { kind: 'refused', error: outcome.error, note };
    return { kind: 'review', reason: note };
  } catch (error) {
    return classify(error, true);
  }
}

/** Marks the command in doubt, then sends it once through the client (which repeats only what never reached the TMS). */
async function send(
  context: AttemptContext,
  command: Command,
  kind: CommandKindDefinition,
  options: { seenBefore: readonly string[] | undefined; inDoubtBefore: boolean },
): Promise<Outcome> {
  const marked = await context.outbox.beginSend(command.id, context.owner, {
    now: context.now(),
    seenBefore: options.seenBefore,
  });
  if (!marked) return { kind: 'lost' };
  const request = {
    ...restRequest(
      kind.method,
      buildPath(kind.path, {
        ...(kind.body === 'none' ? {} : (command.body as object)),
        target: command.target ?? '',
      }),
      { signal: context.signal },
      kind.body === 'sent' ? command.body : undefined,
    ),
    // Never repeated by the client after it may have reached the TMS: the deliverer decides.
    idempotent: false,
  };
  try {
    const answer = await context.client.api.write(request);
    return { kind: 'done', createdId: kind.create ? idOf(answer) : null };
  } catch (error) {
    // A 2xx whose body could not be read was applied all the same.
    if (error instanceof ResponseValidationError || error instanceof ResponseTooLargeError)
      return {
        kind: 'done',
        createdId: null,
        note: `applied; the answer could not be read: ${error.message}`,
      };
    return classify(error, options.inDoubtBefore, true);
  }
}

/**
 * What a failure means for the command. `inDoubt`: whether it was in doubt before this failure;
 * `sent`: whether the failure came from a send (then anything but a provable non-delivery leaves it in doubt).
 */
function classify(error: unknown, inDoubt: boolean, sent = false): Outcome {
  // A token refused or a TMS gone concerns every command; a missing scope (403) only this one's kind.
  if (
    (error instanceof AuthError && error.code !== 'TMS_AUTH_FORBIDDEN') ||
    error instanceof BreakerOpenError
  )
    return { kind: 'halt', error, inDoubt };
  if (error instanceof AmbiguousWriteError) return { kind: 'again', error, inDoubt: true };
  if (error instanceof HttpStatusError) {
    if (error.status === 429 || error.status >= 500) return { kind: 'again', error, inDoubt };
    // A read that the TMS refuses (the invoice is gone) cannot tell an attempt in doubt either.
    if (!sent && inDoubt)
      return { kind: 'review', reason: `cannot read the target back: ${describeFailure(error)}` };
    return { kind: 'refused', error };
  }
  if (error instanceof NetworkError && !error.mayHaveReachedServer) return { kind: 'again', error, inDoubt };
  return { kind: 'again', error, inDoubt: inDoubt || sent };
}
