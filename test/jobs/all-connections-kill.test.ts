import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { verifyConnection } from '../reliability/support/run-cli.js';
import { accountFleetEnv } from './support/account-fleet.js';
import { deleteKeysUnder, eventually } from './support/queue-fixture.js';
import { type CliProcess, killAll, spawnCli } from './support/worker-process.js';

// Two workers of every connection share Redis; one is killed (SIGKILL) while both connections
// backfill: the other takes the killed worker's runs once their locks lapse, and each connection's
// store ends equal to its own account, nothing of one written to the other's.

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
  sim = await startSim({ accounts: 2, invoices: 300, clients: 5, operators: 1 });
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

it('converges both connections when one of two workers of every connection is killed mid-backfill', async () => {
  await slowly(60);
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
  const [killed, survivor] = workers as [CliProcess, CliProcess];
  await killed.waitForLine('"sync job started"', 20_000);
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
}, 90_000);
