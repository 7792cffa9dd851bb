import type { StopSignal } from '../src/linked-signals.js';
/** The runs one worker process has in flight over all its connections (`worker --all-connections`). */
export interface RunSlots {
  /**
   * Waits for a free slot, first come first served, except that a connection's first run (`first`)
   * goes before the runs of connections already running; resolves with its release, or undefined
   * when `signal` aborts first (the job goes back to the queue without having run).
   */
  take(signal: StopSignal, first?: boolean): Promise<(() => void) | undefined>;
}

/**
 * `size` slots shared by every connection's worker in the process: each connection's own limit
 * (its queue's global concurrency) caps what it can hold, so waiting first come first served
 * takes turns between connections, and the process never runs more than `size` partitions. A
 * connection's first run waits only behind other first runs: a connection just added shows within
 * seconds that it works, or why not, instead of after every run already waiting (at 200
 * connections a cycle's worth). It is one run per connection and process.
 */
export function createRunSlots(size: number): RunSlots {
  let free = size;
  const firsts: Array<() => void> = [];
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = firsts.shift() ?? waiting.shift();
    if (next) next();
    else free += 1;
  };
  return {
    take(signal, first = false) {
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
        const line = first ? firsts : waiting;
        const abandon = () => {
          line.splice(line.indexOf(grant), 1);
          resolve(undefined);
        };
        line.push(grant);
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
