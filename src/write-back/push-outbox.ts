import { abortableSleep } from '../client/abortable-sleep.js';
import type { Delivery, DeliveryContext } from './deliver-command.js';
import { drainOutbox } from './drain-outbox.js';

/** What `push` did: every delivery of every pass, the refused commands, and why it stopped early. */
export interface PushReport {
  readonly deliveries: readonly Delivery[];
  readonly admitted: number;
  readonly refused: number;
  /** The TMS could not be reached or refused the token; the rest stays pending. */
  readonly halted: unknown;
}

/**
 * Drains the outbox once: passes until no command is pending or in flight, waiting between
 * passes for the earliest retry time or lease end. Stops early when the TMS cannot be reached or
 * refuses the token, or when `signal` aborts (the commands in hand are recorded first).
 */
export async function pushOutbox(context: DeliveryContext): Promise<PushReport> {
  const deliveries: Delivery[] = [];
  let admitted = 0;
  let refused = 0;
  for (;;) {
    const pass = await drainOutbox(context);
    deliveries.push(...pass.deliveries);
    admitted += pass.admitted;
    refused += pass.refused;
    if (pass.halted !== undefined) return { deliveries, admitted, refused, halted: pass.halted };
    if (context.signal?.aborted || !(await anyOpen(context)))
      return { deliveries, admitted, refused, halted: undefined };
    await waitForDue(context);
  }
}

async function anyOpen(context: DeliveryContext): Promise<boolean> {
  const counts = await context.outbox.counts();
  return counts.some((count) => count.status === 'pending' || count.status === 'in_flight');
}

/** Until the next retry time or lease end, at most `everyMs` (a command another deliverer holds may settle sooner). */
async function waitForDue(context: DeliveryContext): Promise<void> {
  const now = (context.now ?? (() => new Date()))().getTime();
  const due = (await context.outbox.nextDue())?.getTime() ?? now;
  const waitMs = Math.min(Math.max(due - now, 10), context.settings.everyMs);
  await abortableSleep(waitMs, context.signal).catch(() => undefined);
}
