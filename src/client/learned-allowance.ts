/**
 * The TMS's allowance when nobody told it (TMS_MAX_RPS unset), learned from its 429s. Unknown
 * (no spacing) until the first 429; then the rate at which the TMS accepted requests just before
 * it, less a margin, and the budget spaces sends to it. Without a 429 the rate grows: quickly while
 * well below the rate of the last refusal (an estimate taken too early, a burst the TMS allowed
 * first), then a step at a time, so a raised allowance is found again at a cost of one 429 now and
 * then. Each 429 costs every send its Retry-After: probing rarely is what keeps the allowance used.
 * Measured on the children rows (BENCHMARKS.md).
 */
export interface LearnedAllowance {
  /** Requests per second to space sends to; 0 while unknown. */
  rate(): number;
  /** An answer the TMS gave (anything but a 429). */
  accepted(): void;
  /** A 429. */
  refused(): void;
}

/** Accepted answers are counted in slots of this many ms... */
const slotMs = 100;
/** ...over this window: the rate the TMS accepted before a refusal. */
const windowMs = 2000;
/** The rate kept after a refusal, of the rate accepted before it. */
const margin = 0.97;
/** Without a refusal: a step up this often, this large, below and near the last refusal's rate. */
const growth = { quick: { everyMs: 2000, factor: 1.05 }, slow: { everyMs: 20_000, factor: 1.01 } };
/** A refusal this soon after the first answer teaches nothing (there is no rate to read yet). */
const minHistoryMs = 500;
/** Below this share of the last refusal's rate, the rate grows quickly. */
const nearShare = 0.9;

export function createLearnedAllowance(
  now: () => number = performance.now.bind(performance),
): LearnedAllowance {
  const slots = new Array<number>(windowMs / slotMs).fill(0);
  let slotAt = 0;
  let firstAt: number | undefined;
  let rate = 0;
  let refusedRate = 0;
  let refusedAt = 0;
  let grownAt = 0;
  let peak = 0;

  const advance = (at: number) => {
    const slot = Math.floor(at / slotMs);
    if (slot - slotAt >= slots.length) slots.fill(0);
    else for (let s = slotAt + 1; s <= slot; s++) slots[s % slots.length] = 0;
    slotAt = Math.max(slotAt, slot);
  };
  const acceptedRate = (at: number) => {
    advance(at);
    const seconds = Math.min(windowMs, Math.max(slotMs, at - (firstAt ?? at))) / 1000;
    return slots.reduce((sum, count) => sum + count, 0) / seconds;
  };

  return {
    rate() {
      if (rate === 0) return 0;
      const at = now();
      const step = rate < refusedRate * nearShare ? growth.quick : growth.slow;
      if (at - grownAt >= step.everyMs) {
        rate *= step.factor;
        grownAt = at;
      }
      return rate;
    },
    accepted() {
      const at = now();
      firstAt ??= at;
      advance(at);
      slots[Math.floor(at / slotMs) % slots.length]! += 1;
    },
    refused() {
      const at = now();
      // The window after a counted refusal holds its pause: what it accepted says nothing of the rate.
      if (rate > 0 && at - refusedAt < windowMs) return;
      // Too little seen yet to tell a rate: the Retry-After pause alone answers this one.
      if (at - (firstAt ?? at) < minHistoryMs) return;
      const accepted = acceptedRate(at);
      peak = Math.max(peak, accepted);
      // Never below half the best rate the TMS accepted: one refusing at random is not slower.
      const estimate = Math.max(1, accepted * margin, peak / 2);
      rate = rate === 0 ? estimate : Math.min(rate, estimate);
      refusedRate = rate / margin;
      refusedAt = at;
      grownAt = at;
    },
  };
}
