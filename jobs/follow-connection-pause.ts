import type { ConnectionState } from '../src/connections/connection-state.js';
import type { Logger } from '../src/logger.js';
import type { SyncQueue } from './sync-queue.js';

export interface FollowConnectionPauseOptions {
  /** The connection's queue: paused for the whole fleet of its workers, in Redis. */
  readonly queue: Pick<SyncQueue, 'pause' | 'resume' | 'isPaused'>;
  /** The connection's state now (connection-state.ts). */
  readonly read: () => Promise<ConnectionState>;
  readonly logger: Logger;
  /** How often the state is read again. @default 5000 */
  readonly everyMs?: number;
}

/**
 * Keeps a connection's queue paused while the connection is paused or removed, and running
 * otherwise: `connections pause|resume|remove` reach every worker of the connection within
 * `everyMs`, without a restart. A paused queue hands no worker a new job; a run in hand finishes.
 * A failed read (the store down) keeps the queue as it is. Resolves once the state was applied once.
 */
export async function followConnectionPause(
  options: FollowConnectionPauseOptions,
): Promise<{ stop(): void }> {
  let applied: ConnectionState | undefined;
  const apply = async () => {
    try {
      const state = await options.read();
      if (state === applied) return;
      const pause = state !== 'running';
      if (pause !== (await options.queue.isPaused()))
        await (pause ? options.queue.pause() : options.queue.resume());
      if (applied !== undefined || pause)
        options.logger.info(
          { state },
          `connection ${state}: ${pause ? 'no new job taken' : 'jobs taken again'}`,
        );
      applied = state;
    } catch (error) {
      options.logger.warn({ err: error }, 'cannot read the connection state: the queue stays as it is');
    }
  };
  await apply();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void apply().finally(() => {
      busy = false;
    });
  }, options.everyMs ?? 5000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
