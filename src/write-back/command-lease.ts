import { linkSignals, type StopSignal } from '../linked-signals.js';
import type { CommandOutbox } from '../store/store.js';

/** Why a delivery stopped: its lease was taken over or could not be renewed in time. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

export interface LeaseOptions {
  readonly outbox: Pick<CommandOutbox, 'renew'>;
  readonly id: number;
  readonly owner: string;
  readonly leaseMs: number;
  readonly now: () => Date;
  /** Aborts the delivery too (the process stopping). @default none */
  readonly signal?: StopSignal | undefined;
}

export interface HeldLease {
  /** Aborted when the lease is lost, or half of it passed without a renewal, or `signal` aborts. */
  readonly signal: StopSignal;
  /** Whether the lease (not the process) ended the delivery. */
  lost(): boolean;
  stop(): void;
}

/**
 * Keeps a claimed command's lease while it is delivered: renewed every quarter lease. The delivery
 * stops sending once the lease is taken over, or once half of it passed since the last renewal:
 * another deliverer may take the command only when the whole lease passed, so whatever this one
 * sent has had half a lease to reach the TMS before the other reads it back.
 */
export function holdLease(options: LeaseOptions): HeldLease {
  const { outbox, id, owner, leaseMs, now } = options;
  const lease = new AbortController();
  let safeUntil = now().getTime() + leaseMs / 2;
  const lose = (why: string) => {
    if (!lease.signal.aborted) lease.abort(new LeaseLostError(`command ${id}: ${why}`));
  };
  const renew = async () => {
    if (now().getTime() > safeUntil) return lose('half the lease passed without a renewal');
    const renewedAt = now().getTime();
    const kept = await outbox.renew(id, owner, new Date(renewedAt + leaseMs)).catch(() => undefined);
    if (kept === false) lose('another deliverer took the command over');
    else if (kept) safeUntil = renewedAt + leaseMs / 2;
  };
  const timer = setInterval(() => void renew(), leaseMs / 4);
  const deadline = setInterval(
    () => {
      if (now().getTime() > safeUntil) lose('half the lease passed without a renewal');
    },
    Math.max(50, leaseMs / 20),
  );
  // Linked, not AbortSignal.any: the deliverer's stop signal outlives every command (linked-signals.ts).
  const linked = options.signal ? linkSignals(lease.signal, options.signal) : undefined;
  return {
    signal: linked?.signal ?? lease.signal,
    lost: () => lease.signal.aborted,
    stop() {
      clearInterval(timer);
      clearInterval(deadline);
      linked?.unlink();
    },
  };
}
