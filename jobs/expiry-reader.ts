/**
 * The remaining life of a key with an expiry that the processes of a fleet share (a 429's pause, a
 * late fleet), as this process last read it: read again once `readEveryMs` passed, one read at a
 * time, so the many callers of one burst cost one round trip. A failed read should answer 0.
 */
export interface ExpiryReader {
  remainingMs(): Promise<number>;
  /** This process set the key for `ms`: its own callers see it at once, without a read. */
  extend(ms: number): void;
}

export function createExpiryReader(read: () => Promise<number>, readEveryMs: number): ExpiryReader {
  let until = 0;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<void> | undefined;
  const remaining = () => Math.max(0, until - performance.now());
  return {
    async remainingMs() {
      if (performance.now() - readAt < readEveryMs) return remaining();
      reading ??= read()
        .then((ms) => {
          readAt = performance.now();
          until = readAt + Math.max(0, ms);
        })
        .finally(() => {
          reading = undefined;
        });
      await reading;
      return remaining();
    },
    extend(ms) {
      until = Math.max(until, performance.now() + ms);
    },
  };
}
