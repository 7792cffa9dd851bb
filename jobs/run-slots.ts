/** The runs one worker process has in flight over all its connections (`worker --all-connections`). */
export interface RunSlots {
  /**
   * Waits for a free slot, first come first served; resolves with its release, or undefined when
   * `signal` aborts first (the job goes back to the queue without having run).
   */
  take(signal: AbortSignal): Promise<(() => void) | undefined>;
}

/**
 * `size` slots shared by every connection's worker in the process: each connection's own limit
 * (its queue's global concurrency) caps what it can hold, so waiting first come first served
 * takes turns between connections, and the process never runs more than `size` partitions.
 */
export function createRunSlots(size: number): RunSlots {
  let free = size;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free += 1;
  };
  return {
    take(signal) {
      if (signal.aborted) return Promise.resolve(undefined);
      if (free > 0) {
        free -= 1;
        return Promise.resolve(once(release));
      }
      return new Promise((resolve) => {
        const grant = () => {
          signal.removeEventListener('abort', abandon);
          resolve(once(release));
        };
        const abandon = () => {
          waiting.splice(waiting.indexOf(grant), 1);
          resolve(undefined);
        };
        waiting.push(grant);
        signal.addEventListener('abort', abandon, { once: true });
      });
    },
  };
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}
