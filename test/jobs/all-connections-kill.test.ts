import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readHeartbeats } from '../../jobs/worker-heartbeat.js';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { verifyConnection } from '../reliability/support/run-cli.js';
import { accountFleetEnv } from './support/account-fleet.js';
import { deleteKeysUnder, eventually } from './support/queue-fixture.js';
import { type CliProcess, killAll, spawnCli } from './support/worker-process.js';

// Two workers of all connections share Redis, each connection run by one of them
// (WORKER_CONNECTION_OWNERS 1); one is killed (SIGKILL) while both connections backfill: the other
// takes the killed worker's connections once it is lost and their runs once their locks lapse, and
// each connection's store ends equal to its own account, nothing of one written to the other's.

const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
const dir = mkdtempSync(join(tmpdir(), 'tms-all-kill-'));
const prefix = `test-all-kill-${process.pid}-${Date.now()}`;
let sim: SimHandle;
let env: NodeJS.ProcessEnv;
const workers: CliProcess[] = [];

const accounts = [
  ['default', 1],
  ['beta', 2],
] as const;

const slowly = (latencyMs: number) =>
  Promise.all(
    accounts.map(([, account]) => createSimAdminClient({ url: sim.url, account }).setFaults({ latencyMs })),
  );

beforeAll(async () => {
  sim = await startSim({ accounts: 2, invoices: 2000, clients: 5, operators: 1 });
  await redis.connect();
  env = accountFleetEnv({ dir, simUrl: sim.url, others: ['beta'], queuePrefix: prefix });
});

afterAll(async () => {
  await killAll(workers);
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The pids of the processes whose heartbeat for the connection is alive. */
const holders = async (connection: string) => {
  const queueName = connection === 'default' ? 'tms-sync' : `tms-sync.${connection}`;
  const beats = await readHeartbeats(redis, { queuePrefix: prefix, queueName });
  return beats.filter((beat) => beat.alive).map((beat) => beat.pid);
};

it('converges both connections when one of two workers of all connections is killed mid-backfill', async () => {
  await slowly(1000);
  for (let i = 0; i < 2; i++) {
    const worker = spawnCli(['worker', '--all-connections'], {
      ...env,
      OPS_PORT: '0',
      LOG_LEVEL: 'info',
      WORKER_LOCK_MS: '3000',
      WORKER_CONNECTION_CONCURRENCY: '2',
    });
    workers.push(worker);
    await worker.waitForLine('"worker started"', 20_000);
  }
  // Each connection ends up in one process only (the first held both until the second joined).
  const pids = workers.map((worker) => worker.child.pid);
  await eventually(
    async () => {
      const each = await Promise.all(accounts.map(([connection]) => holders(connection)));
      return each.every((held) => held.length === 1 && pids.includes(held[0]));
    },
    20_000,
    'each connection held by one process',
  );
  // A connection handed over finishes its runs in hand within 2.5 s in the process it left.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const midBackfill = await verifyConnection({ simUrl: sim.url, account: 2, connection: 'beta' }, env);
  expect(midBackfill.code, 'beta still backfilling when its worker is killed').not.toBe(0);
  const betaHolder = (await holders('beta'))[0];
  const killed = workers.find((worker) => worker.child.pid === betaHolder)!;
  const survivor = workers.find((worker) => worker !== killed)!;
  killed.child.kill('SIGKILL');
  await killed.exited;
  await slowly(0);

  for (const [connection, account] of accounts) {
    await eventually(
      async () => {
        const verified = await verifyConnection({ simUrl: sim.url, account, connection }, env);
        return verified.code === 0;
      },
      40_000,
      `${connection} equal to account ${account}`,
    );
  }
  expect(survivor.child.exitCode).toBeNull();
  // The killed process's beats stay alive for 3 of their intervals; the survivor took beta over.
  expect(await holders('beta')).toContain(survivor.child.pid);
}, 90_000);
