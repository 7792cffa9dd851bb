import type { Command } from '../store/outbox/command.js';
import { checkCommand } from './admit-command.js';
import { isCommandKind, kindOf } from './command-kinds.js';
import { type Delivery, type DeliveryContext, deliverCommand } from './deliver-command.js';

/** What one pass over the outbox did. */
export interface DrainReport {
  readonly admitted: number;
  /** Commands refused at admission (now `failed` with the reason). */
  readonly refused: number;
  readonly deliveries: readonly Delivery[];
  /** Set when the TMS could not be reached or refused the token: the pass stopped early. */
  readonly halted: unknown;
}

/**
 * One pass: admits the commands inserted since the last pass, then delivers every command that is
 * deliverable now, `concurrency` at once, one per lane (target) at a time in id order, until none
 * is left that is due. Commands waiting for a retry are left for a later pass.
 */
export async function drainOutbox(context: DeliveryContext): Promise<DrainReport> {
  const now = context.now ?? (() => new Date());
  const { admitted, refused } = await context.outbox.admit(
    (command: Command) => checkCommand(command, command.id),
    now(),
  );
  const deliveries: Delivery[] = [];
  const running = new Set<Promise<void>>();
  let halted: unknown;
  const start = (command: Command) => {
    const delivery = deliverCommand(context, command)
      .then(
        (done) => {
          deliveries.push(done);
          halted ??= done.halted;
        },
        // Its outcome could not be recorded (the store): it stays in flight until its lease passes.
        (error: unknown) =>
          context.logger.error({ command: command.id, err: error }, 'command delivery not recorded'),
      )
      .finally(() => running.delete(delivery));
    running.add(delivery);
  };
  try {
    await claimAndDeliver();
  } finally {
    await Promise.allSettled(running);
  }
  return { admitted, refused, deliveries, halted };

  async function claimAndDeliver(): Promise<void> {
    for (;;) {
      const free = context.settings.concurrency - running.size;
      const stop = halted !== undefined || context.signal?.aborted === true;
      const claimed =
        free > 0 && !stop
          ? await context.outbox.claim({
              owner: context.owner,
              now: now(),
              leaseUntil: new Date(now().getTime() + context.settings.leaseMs),
              limit: free,
            })
          : [];
      for (const command of claimed) start(command);
      if (running.size === 0) return;
      await Promise.race(running);
    }
  }
}

/** The streams whose mirror the done commands changed (kind by kind: command-kinds.ts). */
export function touchedStreams(deliveries: readonly Delivery[]): string[] {
  const streams = new Set<string>();
  for (const { command, status } of deliveries) {
    if (status === 'done' && isCommandKind(command.kind))
      for (const stream of kindOf(command.kind).streams) streams.add(stream);
  }
  return [...streams];
}
