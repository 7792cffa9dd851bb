import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { runCli } from '../reliability/support/run-cli.js';
import { eventually } from './support/queue-fixture.js';
import { exitWithin, spawnCli } from './support/worker-process.js';

// A worker of one connection keeps every Redis key under its own queue, the default
// connection's keys untouched, and mirrors into the connection's own destination.

const dir = mkdtempSync(join(tmpdir(), 'tms-connection-worker-'));
const prefix = `test-conn-${process.pid}-${Date.now()}`;
const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
let sim: SimHandle;

beforeAll(async () => {
  sim = await startSim({ accounts: 2, invoices: 30, clients: 5, operators: 1 });
  await redis.connect();
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('worker --connection', () => {
  it("runs the connection's triggers on its own queue, into its own store, leaving the default's keys alone", async () => {
    const config = join(dir, 'tms-sync.jsonc');
    writeFileSync(
      config,
      JSON.stringify({
        storeUrl: `sqlite:${join(dir, 'tms.sqlite')}`,
        streams: { include: ['invoices'] },
        reconcileSchedule: false,
        connections: { beta: { apiToken: 'env:BETA_TOKEN' } },
      }),
    );
    const env = {
      TMS_SYNC_CONFIG: config,
      TMS_BASE_URL: sim.url,
      TMS_API_TOKEN: 'dev-api-token-1',
      BETA_TOKEN: 'dev-api-token-2',
      QUEUE_PREFIX: prefix,
    };
    const worker = spawnCli(['worker', '--connection', 'beta'], { ...env, OPS_PORT: '0', LOG_LEVEL: 'info' });
    try {
      const started = JSON.parse(await worker.waitForLine('"worker started"', 20_000)) as Record<
        string,
        unknown
      >;
      expect(started).toMatchObject({ connection: 'beta', queue: 'tms-sync.beta' });
      const metrics = await (await fetch(`${started.ops as string}/metrics`)).text();
      expect(metrics).toMatch(/^tms_sync_\w+\{[^}]*connection="beta"/m);
      const triggered = await runCli(
        ['trigger', 'invoices', '--full', '--wait', '--connection', 'beta'],
        env,
        60_000,
      );
      expect(triggered.code, triggered.stdout + triggered.stderr).toBe(0);
    } finally {
      worker.child.kill('SIGTERM');
      await exitWithin(worker, 20_000);
    }
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => !key.startsWith(`${prefix}:tms-sync.beta`))).toEqual([]);
    expect(existsSync(join(dir, 'beta.sqlite'))).toBe(true);
    expect(existsSync(join(dir, 'tms.sqlite'))).toBe(false);
    const verified = await runCli(
      ['verify', '--sim-url', sim.url, '--sim-account', '2', '--connection', 'beta', 'invoices'],
      env,
    );
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  }, 90_000);

  it('follows connections pause and resume within seconds by pausing its queue, from a start paused by the file', async () => {
    const config = join(dir, 'paused.jsonc');
    writeFileSync(
      config,
      JSON.stringify({
        storeUrl: `sqlite:${join(dir, 'paused.sqlite')}`,
        streams: { include: ['invoices'] },
        connections: { gamma: { apiToken: 'env:GAMMA_TOKEN', paused: true } },
      }),
    );
    const env = {
      TMS_SYNC_CONFIG: config,
      TMS_BASE_URL: sim.url,
      GAMMA_TOKEN: 'dev-api-token-2',
      QUEUE_PREFIX: prefix,
    };
    const queue = new Queue('tms-sync.gamma', { connection: redis, prefix });
    const worker = spawnCli(['worker', '--connection', 'gamma'], {
      ...env,
      OPS_PORT: '0',
      LOG_LEVEL: 'info',
    });
    try {
      await worker.waitForLine('"worker started"', 20_000);
      expect(await queue.isPaused()).toBe(true);
      expect((await runCli(['connections', 'resume', 'gamma'], env)).code).toBe(0);
      await eventually(async () => !(await queue.isPaused()), 10_000, 'the queue resumed');
      await worker.waitForLine('connection running', 5000);
      expect((await runCli(['connections', 'pause', 'gamma'], env)).code).toBe(0);
      await eventually(() => queue.isPaused(), 10_000, 'the queue paused');
    } finally {
      worker.child.kill('SIGTERM');
      await exitWithin(worker, 20_000);
      await queue.close();
    }
  }, 90_000);
});
