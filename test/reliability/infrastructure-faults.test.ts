import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { openStore } from '../../src/store/open-store.js';
import { exitWithin, spawnCli, spawnWorker, writeWorkerConfig } from '../jobs/support/worker-process.js';
import { dialects, testPgUrl } from '../store/store-fixture.js';
import { freePort } from '../support/free-port.js';

/**
 * The store and the queue fail under a running sync (RELIABILITY.md, infrastructure faults): each
 * run must complete and leave the store equal to the simulator's truth.
 */
let sim: SimHandle;
let dir: string;
const pageLimit = 50;

beforeAll(async () => {
  sim = await startSim({ invoices: 3000, clients: 40, operators: 1, seed: 11 });
  // Slow pages: 60 pages of 70 ms each, at least 4.2 s, so the faults land in the middle of a run,
  // and several of them: a connection seen busy may have finished its statement by the time it is
  // dropped (the pool then just replaces it), so not every drop cuts a write.
  await createSimAdminClient({ url: sim.url }).setFaults({ latencyMs: 70 });
  dir = mkdtempSync(join(tmpdir(), 'tms-infra-'));
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const baseEnv = () => ({
  TMS_BASE_URL: sim.url,
  TMS_API_TOKEN: 'dev-api-token',
  TMS_SYNC_CONFIG: writeWorkerConfig(dir, pageLimit),
  LOG_LEVEL: 'info',
});

async function expectTruth(storeUrl: string): Promise<void> {
  const store = await openStore(storeUrl);
  try {
    const truth = await createSimAdminClient({ url: sim.url }).truth('invoices');
    expect(await differencesFromTruth(store, truth, ['invoices'])).toEqual([]);
  } finally {
    await store.close();
  }
}

describe('infrastructure faults under a running sync', () => {
  it('PostgreSQL connections dropped mid-run: the pages are retried, the run succeeds, nothing is half-written', async () => {
    const fixture = dialects.find((dialect) => dialect.name === 'postgres')!.fixture();
    const admin = new pg.Client({ connectionString: testPgUrl });
    await admin.connect();
    try {
      const storeUrl = await fixture.freshUrl();
      const database = new URL(storeUrl).pathname.slice(1);
      await (await openStore(storeUrl)).close();
      const sync = spawnCli(['sync', 'invoices'], { ...baseEnv(), STORE_URL: storeUrl });
      // Only connections inside a statement or a transaction: the fault is a page write cut off.
      // After each drop the store gets a second to reconnect, as after a real network blip: drops
      // closer together can cut every attempt of the store's retry (about 3 s) on a loaded machine.
      let terminated = 0;
      while (sync.child.exitCode === null) {
        const result = await admin.query<{ pg_terminate_backend: boolean }>(
          `select pg_terminate_backend(pid) from pg_stat_activity
           where datname = $1 and pid <> pg_backend_pid() and state in ('active', 'idle in transaction')`,
          [database],
        );
        const dropped = result.rows.filter((row) => row.pg_terminate_backend).length;
        terminated += dropped;
        await sleep(dropped > 0 ? 1000 : 5 + Math.random() * 20);
      }
      expect(await exitWithin(sync, 1000), sync.lines.slice(-5).join('\n')).toBe(0);
      expect(terminated).toBeGreaterThanOrEqual(2);
      expect(sync.lines.some((line) => line.includes('store: transient failure, retrying'))).toBe(true);
      await expectTruth(storeUrl);
    } finally {
      await admin.end();
      await fixture.cleanup();
    }
  }, 60_000);

  it('SQLite held by another writer mid-run: the sync waits for the lock and succeeds', async () => {
    const storeUrl = `sqlite:${join(dir, 'busy.sqlite')}`;
    await (await openStore(storeUrl)).close();
    const sync = spawnCli(['sync', 'invoices'], { ...baseEnv(), STORE_URL: storeUrl });
    await sync.waitForLine('logged in to the TMS', 20_000);
    await sleep(300);
    const other = new BetterSqlite3(join(dir, 'busy.sqlite'));
    other.exec('BEGIN IMMEDIATE');
    const heldFrom = Date.now();
    await sleep(2500);
    other.exec('COMMIT');
    other.close();
    const heldMs = Date.now() - heldFrom;
    expect(sync.child.exitCode, 'the sync ended while the lock was held').toBeNull();
    expect(await exitWithin(sync, 60_000), sync.lines.slice(-5).join('\n')).toBe(0);
    // A timer may fire a millisecond before Date.now() says it is due.
    expect(heldMs).toBeGreaterThanOrEqual(2400);
    await expectTruth(storeUrl);
  }, 60_000);

  it('Redis restarted mid-run: the worker reconnects and the job completes', async () => {
    const redis = await startRedis(join(dir, 'redis'));
    const storeUrl = `sqlite:${join(dir, 'redis.sqlite')}`;
    const env = {
      ...baseEnv(),
      STORE_URL: storeUrl,
      REDIS_URL: redis.url,
      WORKER_LOCK_MS: '5000',
      OPS_PORT: '0',
    };
    const worker = await spawnWorker(env);
    const trigger = spawnCli(['trigger', 'invoices', '--wait', '--timeout', '120'], env);
    try {
      await worker.waitForLine('"sync job started"', 20_000);
      await sleep(500);
      const downAt = new Date();
      await redis.restart(1500);
      expect(await exitWithin(trigger, 120_000), trigger.lines.slice(-5).join('\n')).toBe(0);
      expect(worker.child.exitCode).toBeNull();
      await expectTruth(storeUrl);
      const store = await openStore(storeUrl);
      const runs = await store.listRuns({ stream: 'invoices' }).finally(() => store.close());
      const live = runs.filter((run) => run.partition === '');
      // Redis went down mid-run: no run of the partition had finished by then, and one succeeded after.
      expect(live.every((run) => run.finishedAt === null || run.finishedAt > downAt)).toBe(true);
      expect(live.at(0)?.result).toBe('succeeded');
    } finally {
      for (const child of [worker, trigger]) if (child.child.exitCode === null) child.child.kill('SIGKILL');
      await redis.stop();
    }
  }, 150_000);
});

/** A private redis-server with an append-only file (as a production queue's Redis should be). */
async function startRedis(path: string) {
  const port = await freePort();
  const start = async () => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--appendfilename',
        'drill.aof',
        '--appenddirname',
        `${path.split('/').pop()}-aof`,
        '--save',
        '',
      ],
      { stdio: 'ignore' },
    );
    await waitForPort(port);
    return child;
  };
  let server: ChildProcess = await start();
  const stop = async () => {
    server.kill('SIGKILL');
    if (server.exitCode === null && server.signalCode === null) await once(server, 'exit');
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart(downMs: number) {
      await stop();
      await sleep(downMs);
      server = await start();
    },
    stop,
  };
}

async function waitForPort(port: number): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const ok = await new Promise<boolean>((resolve) => {
      const child = spawn('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
      child.on('exit', (code) => resolve(code === 0));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`redis-server did not start on port ${port}`);
}
