/** Waits `ms`; rejects with the signal's reason as soon as it aborts (also when already aborted). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A signal that aborts with the first of its sources to abort, until `unlink` detaches it from them. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Aborts the linked signal itself (a deadline, a pass that ended). */
  abort(reason: unknown): void;
  unlink(): void;
}

const unlinked = () => undefined;

/**
 * Links a signal to `sources`, for one piece of work that calls `unlink` when it ends. Used in
 * place of AbortSignal.any on every request: Node 20's AbortSignal.any keeps each combined signal
 * alive in its sources until a garbage collection, ~10 µs a call (three per request: 7% of the
 * child streams' CPU; BENCHMARKS.md). A source aborted already aborts it at once.
 */
export function linkSignals(...sources: Array<AbortSignal | undefined>): LinkedSignal {
  const controller = new AbortController();
  const abort = (reason: unknown) => controller.abort(reason);
  const present = sources.filter((source): source is AbortSignal => source !== undefined);
  const aborted = present.find((source) => source.aborted);
  if (aborted || present.length === 0) {
    if (aborted) abort(aborted.reason);
    return { signal: controller.signal, abort, unlink: unlinked };
  }
  const unlink = () => {
    for (const source of present) source.removeEventListener('abort', onAbort);
  };
  function onAbort(this: AbortSignal) {
    unlink();
    abort(this.reason);
  }
  for (const source of present) source.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, abort, unlink };
}
