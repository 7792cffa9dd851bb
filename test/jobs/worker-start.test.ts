import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import { type QueueFixture, queueFixture } from './support/queue-fixture.js';
import { exitWithin, spawnCli, writeWorkerConfig } from './support/worker-process.js';

describe('a worker whose ops server cannot listen', () => {
  let fixture: QueueFixture;
  let dir: string;
  let busy: Server;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tms-worker-start-'));
    fixture = queueFixture();
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    env = {
      TMS_BASE_URL: 'http://127.0.0.1:9',
      TMS_API_TOKEN: 'dev-api-token',
      STORE_URL: `sqlite:${join(dir, 'store.sqlite')}`,
      REDIS_URL: fixture.settings.redisUrl,
      QUEUE_PREFIX: fixture.prefix,
      TMS_SYNC_CONFIG: writeWorkerConfig(dir, 50),
      LOG_LEVEL: 'info',
    };
    // Work waiting for the worker: it must not be taken by a worker that cannot start.
    await enqueueRun(fixture.queue, { stream: 'invoices', partition: 'live', trigger: 'manual' });
  });
  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    await fixture.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const cases = [
    {
      name: 'an OPS_PORT in use',
      ops: () => ({ OPS_PORT: String((busy.address() as { port: number }).port) }),
      setting: 'OPS_PORT',
    },
    // 192.0.2.1 is TEST-NET-1: an address no machine here has.
    {
      name: 'an OPS_HOST that is not on this machine',
      ops: () => ({ OPS_HOST: '192.0.2.1', OPS_PORT: '0' }),
      setting: 'OPS_HOST',
    },
  ];

  it.each(cases)(
    'stops at start on $name, naming it, exit code 2, before taking a job',
    async ({ ops, setting }) => {
      const worker = spawnCli(['worker'], { ...env, ...ops() });
      const code = await exitWithin(worker, 20_000);
      expect(code).toBe(2);
      const last = worker.lines.at(-1) ?? '';
      expect(last).toMatch(new RegExp(`^tms-sync worker: invalid configuration: ${setting}: `));
      expect(worker.lines.join('\n')).not.toContain('sync job started');
      expect(
        await fixture.queue.getJobCounts('active', 'completed', 'failed', 'waiting', 'wait'),
      ).toMatchObject({
        active: 0,
        completed: 0,
        failed: 0,
      });
    },
  );
});
