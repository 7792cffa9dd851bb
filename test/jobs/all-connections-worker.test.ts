import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { runCli, verifyConnection } from '../reliability/support/run-cli.js';
import { dialects } from '../store/store-fixture.js';
import { deleteKeysUnder, eventually } from './support/queue-fixture.js';
import { type CliProcess, exitWithin, spawnCli } from './support/worker-process.js';

// Issue #35: one worker process serves every connection, each into its own store (a SQLite file,
// a PostgreSQL schema), follows `connections add|pause|resume|remove` within 10 s, and one
// connection's refused token parks that one only.

const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
let sim: SimHandle;
let worker: CliProcess;
let env: NodeJS.ProcessEnv;
let ops: string;

/** A log line of the worker about `connection` that says `text`. */
const lineOf = (connection: string, text: string) =>
  worker.lines.find((line) => line.includes(`"connection":"${connection}"`) && line.includes(text));

const verify = (connection: string, account: number) =>
  verifyConnection({ simUrl: sim.url, account, connection }, env);

beforeAll(async () => {
  sim = await startSim({ accounts: 4, invoices: 30, clients: 5, operators: 1 });
  await redis.connect();
});
afterAll(async () => {
  await redis.quit();
  await sim.close();
});

describe.each(dialects)('worker --all-connections on $name', ({ name, fixture: makeFixture }) => {
  const fixture = makeFixture();
  const dir = mkdtempSync(join(tmpdir(), 'tms-all-connections-'));
  const prefix = `test-all-${name}-${process.pid}-${Date.now()}`;
  let storeUrl: string;

  beforeAll(async () => {
    const config = join(dir, 'tms-sync.jsonc');
    storeUrl = name === 'sqlite' ? `sqlite:${join(dir, 'tms.sqlite')}` : await fixture.freshUrl();
    writeFileSync(
      config,
      JSON.stringify({
        storeUrl,
        streams: { include: ['invoices'] },
        schedule: { everySeconds: 1 },
        reconcileSchedule: false,
        connections: {
          beta: { apiToken: 'env:BETA_TOKEN' },
          broken: { apiToken: 'env:BROKEN_TOKEN' },
          // Its store cannot be opened (no such directory): parked, the others run.
          nostore: { apiToken: 'env:BETA_TOKEN', storeUrl: `sqlite:${join(dir, 'missing', 'x.sqlite')}` },
        },
      }),
    );
    env = {
      TMS_SYNC_CONFIG: config,
      TMS_BASE_URL: sim.url,
      TMS_API_TOKEN: 'dev-api-token-1',
      BETA_TOKEN: 'dev-api-token-2',
      BROKEN_TOKEN: 'a-revoked-token',
      DELTA_TOKEN: 'dev-api-token-3',
      QUEUE_PREFIX: prefix,
    };
    worker = spawnCli(['worker', '--all-connections'], {
      ...env,
      OPS_PORT: '0',
      LOG_LEVEL: 'info',
      WORKER_CONNECTION_CONCURRENCY: '1',
    });
    const started = JSON.parse(await worker.waitForLine('"worker started"', 20_000)) as Record<
      string,
      unknown
    >;
    expect(started.connections).toEqual(expect.arrayContaining(['default', 'beta', 'broken']));
    ops = started.ops as string;
  });

  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    if (worker) expect(await exitWithin(worker, 20_000)).toBe(0);
    await deleteKeysUnder(redis, prefix);
    await fixture.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('converges every connection into its own store while a refused token or a store away parks its own connection only', async () => {
    await eventually(() => lineOf('broken', 'sync job failed'), 15_000, "the broken connection's failure");
    expect(lineOf('nostore', 'connection parked')).toBeDefined();
    await eventually(
      () => lineOf('default', 'sync job completed') && lineOf('beta', 'sync job completed'),
      15_000,
      'runs of default and beta',
    );
    // A completed run may be of a `deleted` partition: each converges within seconds.
    for (const [connection, account] of [
      ['default', 1],
      ['beta', 2],
    ] as const)
      await eventually(
        async () => (await verify(connection, account)).code === 0,
        15_000,
        `${connection} converged`,
      );
    const readiness = (await (await fetch(`${ops}/readyz`)).json()) as {
      status: string;
      checks: { tms: string };
    };
    expect(readiness.status).toBe('ready');
    expect(readiness.checks.tms).toMatch(/^broken: /);
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    for (const connection of ['default', 'beta', 'broken'])
      expect(metrics).toMatch(new RegExp(`^tms_sync_queue_jobs\\{[^}]*connection="${connection}"`, 'm'));
    if (name === 'postgres') {
      // The worker keeps the views across connections (CONNECTION_VIEWS, default tms_all).
      const counted = () =>
        fixture.query<{ connection: string; count: number }>(
          storeUrl,
          'select connection, count(*)::int as count from tms_all.invoices_live group by connection order by connection',
        );
      await eventually(
        async () => (await counted().catch(() => [])).length === 2,
        10_000,
        'the views over default and beta',
      );
      expect(await counted()).toEqual([
        { connection: 'beta', count: expect.any(Number) },
        { connection: 'default', count: expect.any(Number) },
      ]);
    }
  }, 60_000);

  it('starts the backfill of a connection added with `connections add` within 10 s, without a restart', async () => {
    const added = await runCli(['connections', 'add', 'delta', '--api-token', 'env:DELTA_TOKEN'], env);
    expect(added.code, added.stdout + added.stderr).toBe(0);
    const since = Date.now();
    await eventually(() => lineOf('delta', 'sync job started'), 10_000, "delta's backfill");
    expect(Date.now() - since).toBeLessThan(10_000);
    await eventually(async () => (await verify('delta', 3)).code === 0, 15_000, "delta's backfill done");
    expect((await runCli(['connections', 'remove', 'delta'], env)).code).toBe(0);
    await eventually(() => lineOf('delta', 'connection removed'), 10_000, 'delta removed');
    // Its schedulers, jobs and heartbeats leave Redis with its queue; its store stays.
    await eventually(
      async () => (await redis.keys(`${prefix}:tms-sync.delta:*`)).length === 0,
      10_000,
      "delta's queue gone from Redis",
    );
  }, 45_000);

  it("delivers each connection's write-back commands to its own account, and syncs what they changed", async () => {
    const admin = (account: number) => createSimAdminClient({ url: sim.url, account });
    const invoices = (await admin(2).truth('invoices')).invoices!['']!.records as Array<{
      id: string;
      status: string;
    }>;
    const invoice = invoices.find((row) => row.status === 'finalized')!.id;
    const references = async (account: number) =>
      (
        ((await admin(account).truth('invoice_payments')).invoice_payments?.[invoice]?.records ??
          []) as Array<{ reference: string }>
      ).map((payment) => payment.reference);
    const body = (reference: string) => JSON.stringify({ amount: 5, date: '2026-11-20', reference });
    for (const [connection, reference] of [
      ['beta', 'FLEET-BETA'],
      ['default', 'FLEET-DEFAULT'],
    ] as const) {
      const added = await runCli(
        ['command', 'add', 'record_payment', invoice, '--body', body(reference), '--connection', connection],
        env,
      );
      expect(added.code, added.stdout + added.stderr).toBe(0);
    }
    await eventually(
      async () =>
        (await references(2)).includes('FLEET-BETA') && (await references(1)).includes('FLEET-DEFAULT'),
      15_000,
      'both payments delivered',
    );
    expect(await references(2)).not.toContain('FLEET-DEFAULT');
    expect(await references(1)).not.toContain('FLEET-BETA');
    await eventually(() => lineOf('beta', '"trigger":"command"'), 10_000, "beta's run of what changed");
  }, 40_000);

  it('runs no job of a paused connection 10 s after `connections pause`, and runs it again on `resume`', async () => {
    const queue = new Queue('tms-sync.beta', { connection: redis, prefix });
    try {
      expect((await runCli(['connections', 'pause', 'beta'], env)).code).toBe(0);
      const paused = Date.now();
      await eventually(() => lineOf('beta', 'connection paused'), 10_000, 'beta paused');
      // The line comes as it takes no new job; a run in hand may finish (within 2.5 s): none 10 s later.
      await eventually(async () => (await queue.getActiveCount()) === 0, 10_000, "beta's run in hand");
      expect(Date.now() - paused).toBeLessThan(10_000);
      const completed = await queue.getCompletedCount();
      // Its schedulers go on ticking every second; nothing takes their jobs.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(await queue.getCompletedCount()).toBe(completed);
      expect(await queue.getActiveCount()).toBe(0);
      const others = lineCount('default', 'sync job completed');
      await eventually(() => lineCount('default', 'sync job completed') > others, 5000, 'default runs on');
      const betaRuns = lineCount('beta', 'sync job completed');
      expect((await runCli(['connections', 'resume', 'beta'], env)).code).toBe(0);
      await eventually(() => lineCount('beta', 'sync job completed') > betaRuns, 10_000, 'beta runs again');
    } finally {
      await queue.close();
    }
  }, 30_000);
});

function lineCount(connection: string, text: string): number {
  return worker.lines.filter((line) => line.includes(`"connection":"${connection}"`) && line.includes(text))
    .length;
}
