import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { verifyConnection } from '../reliability/support/run-cli.js';
import { accountFleetEnv } from './support/account-fleet.js';
import { deleteKeysUnder, eventually } from './support/queue-fixture.js';
import { type CliProcess, exitWithin, spawnCli } from './support/worker-process.js';

// Issue #35: the TMS revokes one account's API token while a worker of every connection is in
// the middle of that account's backfill. That connection's runs fail with the reason, keep what
// they committed and move no watermark; the other connections go on converging, their cycles
// undelayed; once the token is restored, the connection resumes and converges too.

const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
const dir = mkdtempSync(join(tmpdir(), 'tms-all-revoked-'));
const prefix = `test-all-revoked-${process.pid}-${Date.now()}`;
let sim: SimHandle;
let env: NodeJS.ProcessEnv;
let worker: CliProcess;

const others = [
  ['default', 1],
  ['gamma', 3],
] as const;

/** Log lines of the worker about `connection` that say `text`, from line `from` on. */
const linesOf = (connection: string, text: string, from = 0) =>
  worker.lines
    .slice(from)
    .filter((line) => line.includes(`"connection":"${connection}"`) && line.includes(text));

const verify = (connection: string, account: number) =>
  verifyConnection({ simUrl: sim.url, account, connection }, env);

/** Beta's store, read beside the worker that writes it. */
async function readBeta<T>(read: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(`sqlite:${join(dir, 'beta.sqlite')}`, { migrate: false });
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

/** Beta's invoices: the state of each partition (live '' and 'deleted') and the rows. */
const betaProgress = () =>
  readBeta(async (store) => ({
    states: (await store.listStates()).filter((state) => state.stream === 'invoices'),
    rows: await store.countRows('invoices'),
  }));
const livePartition = (progress: Awaited<ReturnType<typeof betaProgress>>) =>
  progress.states.find((state) => state.partition === '');

/** Beta's progress once each partition of invoices failed `count` runs since line `from`. */
async function failuresOfEachPartition(from: number, count: number) {
  for (const partition of ['', 'deleted'])
    await eventually(
      () =>
        linesOf('beta', 'sync job failed', from).filter((line) => line.includes(`"partition":"${partition}"`))
          .length >= count,
      10_000,
      `${count} failed runs of beta's partition "${partition}"`,
    );
  return betaProgress();
}

beforeAll(async () => {
  sim = await startSim({ accounts: 3, invoices: 400, clients: 5, operators: 1 });
  await redis.connect();
  env = accountFleetEnv({ dir, simUrl: sim.url, others: ['beta', 'gamma'], queuePrefix: prefix });
});

afterAll(async () => {
  worker?.child.kill('SIGTERM');
  if (worker) await exitWithin(worker, 20_000);
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

it('fails the runs of the connection whose token is revoked mid-backfill, losing nothing, while the others converge undelayed; it converges once the token is back', async () => {
  const beta = createSimAdminClient({ url: sim.url, account: 2 });
  // Beta's backfill (20 pages) takes seconds: the revoke lands in its middle.
  await beta.setFaults({ latencyMs: 150 });
  worker = spawnCli(['worker', '--all-connections'], { ...env, OPS_PORT: '0', LOG_LEVEL: 'info' });
  await worker.waitForLine('"worker started"', 20_000);
  await eventually(
    async () => livePartition(await betaProgress())?.cursor,
    20_000,
    "a checkpoint of beta's backfill",
  );
  const revokedFrom = worker.lines.length;
  await beta.rotateApiToken('revoked-by-the-tms');

  const failed = await eventually(
    () => linesOf('beta', 'sync job failed', revokedFrom)[0],
    10_000,
    "beta's run failing",
  );
  expect(failed).toContain('the API token was refused (401)');

  // Each of the others completes runs started after the revoke, on its 1 s schedule.
  for (const [connection] of others)
    await eventually(
      () => linesOf(connection, 'sync job completed', revokedFrom).length >= 2,
      10_000,
      `${connection}'s runs after the revoke`,
    );
  // A partition's second failure is a later run (one run per partition): the one the revoke cut is over.
  const settled = await failuresOfEachPartition(revokedFrom, 2);
  expect(settled.rows).toBeGreaterThan(0);
  // Mid-backfill: the live partition holds its checkpoint, its watermark not moved.
  expect(livePartition(settled)).toMatchObject({ watermark: null, cursor: expect.any(String) });
  // Its later runs are refused before their first page: state and rows as the cut run left them.
  expect(await failuresOfEachPartition(revokedFrom, 3)).toEqual(settled);
  const runs = await readBeta((store) => store.listRuns({ stream: 'invoices', limit: 10 }));
  expect(runs.some((run) => run.result === 'failed' && /refused \(401\)/.test(run.error ?? ''))).toBe(true);
  // Runs completed after the revoke may be of their `deleted` partitions while the live one's
  // backfill still waits for a slot: each converges within seconds of its own.
  for (const [connection, account] of others)
    await eventually(
      async () => (await verify(connection, account)).code === 0,
      15_000,
      `${connection} converged`,
    );

  const restoredFrom = worker.lines.length;
  await beta.setFaults({ latencyMs: 0 });
  await beta.rotateApiToken('dev-api-token-2');
  await eventually(
    () => linesOf('beta', 'sync job completed', restoredFrom)[0],
    10_000,
    "beta's run after the restore",
  );
  // That run may be of `deleted`; the live partition resumes from its checkpoint on its own tick.
  await eventually(async () => (await verify('beta', 2)).code === 0, 15_000, 'beta converged');
  // Every row can be in before the run commits its watermark: with a last page that is empty.
  await eventually(
    async () => (await betaProgress()).states.every((state) => state.watermark !== null),
    15_000,
    "beta's invoices partitions each with its watermark",
  );
}, 60_000);
