/**
 * Writes a listing's pages in order with one in flight: a page is prepared (mapped, encoded) and
 * queued behind the page being written, and `push` returns once that one committed, so the next
 * page is fetched and validated while this one is written (two pages in memory at most). The
 * first failure stops the pipeline: the pages queued behind it are never written, and `push` and
 * `drain` throw it.
 */
export interface PagePipeline {
  /** `write` gets the write to wait for and must begin its transaction only after it. */
  push(write: (after: Promise<unknown>) => Promise<unknown>): Promise<void>;
  /** Waits for every queued write; throws the first failure. Call it also when leaving early. */
  drain(): Promise<void>;
}

export function createPagePipeline(): PagePipeline {
  let last: Promise<unknown> = Promise.resolve();
  let failure: { error: unknown } | undefined;
  const check = () => {
    if (failure) throw failure.error;
  };
  return {
    async push(write) {
      check();
      const previous = last;
      last = write(previous);
      last.catch((error: unknown) => {
        failure ??= { error };
      });
      await previous.catch(() => undefined);
      check();
    },
    async drain() {
      await last.catch(() => undefined);
      check();
    },
  };
}
