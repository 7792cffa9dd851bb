import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { spawnCli } from '../../jobs/support/worker-process.js';
import { runCli } from '../support/run-cli.js';
import type { Deliver } from './play.js';

/** A deliverer process, killed with SIGKILL this long after it took its first command. */
export interface Kill {
  readonly deliverer: 'push' | 'worker';
  readonly afterMs: number;
}

/** One to three kills, each mid-delivery. */
export const killPlans: fc.Arbitrary<Kill[]> = fc.array(
  fc.record({
    deliverer: fc.constantFrom('push' as const, 'worker' as const),
    afterMs: fc.integer({ min: 0, max: 400 }),
  }),
  { minLength: 1, maxLength: 3 },
);

/** What the deliverer processes need besides the TMS and the store: Redis for a worker, a config without schedules. */
export interface ProcessEnvironment {
  readonly redisUrl: string;
  readonly queuePrefix: string;
  readonly configPath: string;
}

/**
 * Latency on every request, so that deliveries last long enough for the kills to land in them, most
 * of it after the handler ran: a deliverer killed then leaves its request applied upstream.
 */
export const killLatency = { latencyMs: 10, latencyJitterMs: 40, answerLatencyMs: 60 };

/**
 * Delivers with real `tms-sync push` and `tms-sync worker` processes, each killed with SIGKILL
 * mid-delivery, then one `push` to its end under the same faults: it takes over what the dead ones
 * held once their leases passed (reading back first whatever they may have sent).
 */
export function deliverWithKills(
  kills: readonly Kill[],
  environment: ProcessEnvironment,
  onKill: (heldByTheDead: number) => void = () => undefined,
): Deliver {
  return async ({ sim, store, storeUrl }) => {
    const env: NodeJS.ProcessEnv = {
      TMS_BASE_URL: sim.url,
      TMS_API_TOKEN: sim.options.apiToken,
      STORE_URL: storeUrl,
      LOG_LEVEL: 'silent',
      COMMANDS_LEASE_MS: '1500',
      COMMANDS_RETRY_MS: '5',
      COMMANDS_MAX_ATTEMPTS: '60',
      COMMANDS_EVERY_MS: '100',
      COMMANDS_CONCURRENCY: '3',
      TMS_REQUEST_CEILING_SECONDS: '3',
      REDIS_URL: environment.redisUrl,
      QUEUE_PREFIX: environment.queuePrefix,
      TMS_SYNC_CONFIG: environment.configPath,
      WORKER_LOCK_MS: '2000',
      OPS_PORT: '0',
    };
    for (const kill of kills) {
      const deliverer = spawnCli([kill.deliverer], env);
      const owner = `:${deliverer.child.pid}`;
      await until(
        async () =>
          (await store.commands.list({ status: 'in_flight' })).some((command) =>
            command.owner?.endsWith(owner),
          ),
        deliverer.exited,
      );
      await sleep(kill.afterMs);
      deliverer.child.kill('SIGKILL');
      await deliverer.exited;
      const counts = await store.commands.counts();
      onKill(
        counts.filter((count) => count.status === 'in_flight').reduce((sum, count) => sum + count.count, 0),
      );
    }
    const final = await runCli(['push'], env, 90_000);
    if (final.code === null) throw new Error(`the final push did not end: ${final.stderr.slice(-2000)}`);
  };
}

/** Polls `check` until it holds, the process ended, or 10 s passed (it had nothing left to deliver). */
async function until(check: () => Promise<boolean>, exited: Promise<unknown>): Promise<void> {
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  const deadline = Date.now() + 10_000;
  while (!ended && Date.now() < deadline && !(await check())) await sleep(10);
}
