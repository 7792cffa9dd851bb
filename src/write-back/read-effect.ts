import type { JsonObject } from '../../schemas/json-object.js';
import { HttpStatusError, type TmsClient } from '../client/index.js';
import type { StopSignal } from '../linked-signals.js';
import type { Command } from '../store/outbox/command.js';
import type { EffectCheck } from './command-kinds.js';
import { comparePatch, type FieldComparison } from './lenient-match.js';
import { idOf } from './read-back.js';

/** Whether an idempotent command's effect shows upstream: `same` holds, `different` does not, `unknown` cannot be read. */
export interface Effect {
  readonly holds: FieldComparison;
  /** What was read, for the command's last error. */
  readonly seen: string;
}

/**
 * Reads the target's state after a 409 or 404 that followed an attempt in doubt: the first attempt
 * may have been applied, and the refusal only says the second came too late (already finalized =
 * done). The invoice's state is read from a `status` or `state` field (docs/api.md names the states,
 * not the field); a TMS without either leaves the command for review.
 */
export async function readEffect(
  client: TmsClient,
  command: Command,
  effect: EffectCheck,
  signal: StopSignal,
): Promise<Effect> {
  const target = command.target ?? '';
  switch (effect) {
    case 'finalized':
      return stateIs(await invoice(client, target, signal), ['finalized']);
    case 'cancelled':
      return stateIs(await invoice(client, target, signal), ['cancelled', 'canceled']);
    case 'invoice-gone': {
      const record = await invoice(client, target, signal);
      return record === undefined
        ? { holds: 'same', seen: 'the invoice is gone (404)' }
        : stateIs(record, ['deleted']);
    }
    case 'payment-gone': {
      const paymentId = String((command.body as JsonObject).paymentId);
      const listed = await findListed(
        client.listPayments({ invoiceId: target, limit: 1000, signal }),
        paymentId,
      );
      return listed
        ? { holds: 'different', seen: `payment ${paymentId} is still listed` }
        : { holds: 'same', seen: `payment ${paymentId} is not listed` };
    }
    case 'invoice-patched':
      return patched(command.body, await invoice(client, target, signal), 'the invoice');
    case 'client-patched':
      return patched(
        command.body,
        await findListed(client.listClients({ limit: 1000, signal }), target),
        'the client',
      );
  }
}

/** The invoice with its lines, or undefined when the TMS answers 404. */
async function invoice(client: TmsClient, id: string, signal: StopSignal): Promise<JsonObject | undefined> {
  try {
    return await client.getInvoice(id, { signal });
  } catch (error) {
    if (error instanceof HttpStatusError && error.status === 404) return undefined;
    throw error;
  }
}

async function findListed(
  pages: AsyncIterable<{ items: JsonObject[] }>,
  id: string,
): Promise<JsonObject | undefined> {
  for await (const page of pages) {
    const found = page.items.find((record) => idOf(record) === id);
    if (found) return found;
  }
  return undefined;
}

function stateIs(record: JsonObject | undefined, states: readonly string[]): Effect {
  if (record === undefined) return { holds: 'different', seen: 'the invoice is gone (404)' };
  const state = [record.status, record.state].find((value) => typeof value === 'string') as
    | string
    | undefined;
  if (state === undefined) return { holds: 'unknown', seen: 'the invoice shows no status or state field' };
  return {
    holds: states.includes(state.toLowerCase()) ? 'same' : 'different',
    seen: `the invoice reads ${state}`,
  };
}

function patched(patch: unknown, record: JsonObject | undefined, what: string): Effect {
  if (record === undefined) return { holds: 'different', seen: `${what} is gone` };
  const holds = comparePatch(patch, record);
  const seen = {
    same: 'shows the patch',
    different: 'differs from the patch',
    unknown: 'lacks fields of the patch',
  }[holds];
  return { holds, seen: `${what} ${seen}` };
}
