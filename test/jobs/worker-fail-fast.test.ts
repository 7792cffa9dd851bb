import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import type { SyncWorker } from '../../jobs/sync-worker.js';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { createSyncEngine, type SyncEngine } from '../../src/sync/sync-engine.js';
import {
  eventually,
  type QueueFixture,
  queueFixture,
  silentLogger,
  startFixtureWorker,
} from './support/queue-fixture.js';

let sim: SimHandle | undefined;
let fixture: QueueFixture | undefined;
let worker: SyncWorker | undefined;
let engine: SyncEngine | undefined;
const dir = mkdtempSync(join(tmpdir(), 'tms-worker-fail-fast-'));

afterEach(async () => {
  await worker?.stop(5000);
  await engine?.close();
  await fixture?.cleanup();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the worker with a refused API token', () => {
  it('fails each job once, permanently, naming TMS_API_TOKEN, after one login request for all of them', async () => {
    sim = await startSim({ invoices: 20, clients: 5, operators: 1 });
    fixture = queueFixture({
      TMS_BASE_URL: sim.url,
      TMS_API_TOKEN: 'not-the-token',
      STORE_URL: `sqlite:${join(dir, 'store.sqlite')}`,
      JOB_ATTEMPTS: '5',
      WORKER_CONCURRENCY: '4',
    });
    engine = await createSyncEngine({ settings: fixture.settings, logger: silentLogger });
    worker = await startFixtureWorker(fixture, engine);
    const targets = [
      { stream: 'invoices', partition: '' },
      { stream: 'invoices', partition: 'deleted' },
      { stream: 'clients', partition: '' },
      { stream: 'addressbook', partition: '' },
    ];
    for (const target of targets) await enqueueRun(fixture.queue, { ...target, trigger: 'manual' });
    const queue = fixture.queue;
    const failed = await eventually(
      async () => {
        const jobs = await queue.getFailed();
        return jobs.length === targets.length && jobs;
      },
      10_000,
      'every job failed',
    );
    for (const job of failed) {
      expect(job.attemptsMade).toBe(1);
      expect(job.failedReason).toMatch(
        /invalid configuration: TMS_API_TOKEN: the TMS at .* refused the API token/,
      );
    }
    const logins = Object.values(
      (await createSimAdminClient({ url: sim.url }).requests())['POST /auth/login-api-token'] ?? {},
    );
    expect(logins.reduce((a, b) => a + b, 0)).toBe(1);
  });
});
