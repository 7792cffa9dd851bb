import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enqueueRun } from '../../jobs/enqueue-run.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { runCli } from '../reliability/support/run-cli.js';
import { eventually, type QueueFixture, queueFixture } from './support/queue-fixture.js';
import { type CliProcess, killAll, spawnWorker, workerEnv } from './support/worker-process.js';

// /readyz is red while the worker cannot do its job, with the reason; /healthz
// stays liveness; /metrics and `status` say the same.

let sim: SimHandle;
let fixture: QueueFixture;
let dir: string;
let env: NodeJS.ProcessEnv;
const processes: CliProcess[] = [];

beforeEach(async () => {
  sim = await startSim({ invoices: 60, clients: 10, operators: 1, seed: 3 });
  dir = mkdtempSync(join(tmpdir(), 'tms-ready-'));
  fixture = queueFixture({ WORKER_LOCK_MS: '2000' });
  env = workerEnv({ simUrl: sim.url, dir, queue: fixture, pageLimit: 50 });
});

afterEach(async () => {
  await killAll(processes);
  await fixture.cleanup();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function worker(extra: NodeJS.ProcessEnv = {}) {
  const started = await spawnWorker({ ...env, ...extra });
  processes.push(started);
  return started;
}

const get = async (url: string) => {
  const answer = await fetch(url);
  return { status: answer.status, text: await answer.text() };
};

describe('readiness of a worker process', () => {
  it('a refused API token: /healthz 200, /readyz 503 naming TMS_API_TOKEN, and /metrics and status say so', async () => {
    const running = await worker({ TMS_API_TOKEN: 'not-the-token' });
    expect((await get(`${running.opsUrl}/healthz`)).status).toBe(200);
    const ready = await get(`${running.opsUrl}/readyz`);
    expect(ready.status).toBe(503);
    const body = JSON.parse(ready.text) as {
      status: string;
      reasons: string[];
      checks: Record<string, string>;
    };
    expect(body.status).toBe('not ready');
    expect(body.reasons).toEqual([
      expect.stringMatching(/^tms: .*TMS_API_TOKEN: the TMS at .* refused the API token/),
    ]);
    expect(body.checks).toMatchObject({ redis: 'ok', store: 'ok', runs: 'ok' });
    expect(ready.text).not.toContain('not-the-token');

    const metrics = (await get(`${running.opsUrl}/metrics`)).text;
    expect(metrics).toMatch(/^tms_sync_ready 0$/m);
    expect(metrics).toMatch(/^tms_sync_readiness_check\{check="tms"\} 0$/m);
    expect(metrics).toMatch(/^tms_sync_readiness_check\{check="store"\} 1$/m);

    const status = await runCli(['status'], env);
    expect(status.stdout).toMatch(/^workers: 1 alive, NONE READY$/m);
    expect(status.stdout).toMatch(/NOT READY \(it cannot sync\):\n {4}tms: .*refused the API token/);
  });

  it('ready while it can sync; red with both reasons once the TMS is gone and every latest run failed', async () => {
    const running = await worker({ TMS_PATIENCE_SECONDS: '1', TMS_REQUEST_CEILING_SECONDS: '1' });
    expect(await get(`${running.opsUrl}/readyz`)).toMatchObject({ status: 200 });
    expect((await get(`${running.opsUrl}/metrics`)).text).toMatch(/^tms_sync_ready 1$/m);
    expect((await runCli(['status'], env)).stdout).toMatch(/last heartbeat .* ready$/m);

    await sim.close();
    await enqueueRun(fixture.queue, { stream: 'invoices', partition: '', trigger: 'manual' });
    const reasons = await eventually(
      async () => {
        const answer = await get(`${running.opsUrl}/readyz`);
        const body = JSON.parse(answer.text) as { reasons?: string[] };
        return answer.status === 503 && (body.reasons?.length ?? 0) === 2 && body.reasons;
      },
      20_000,
      '/readyz red with the TMS and the runs',
    );
    expect(reasons).toEqual([
      expect.stringMatching(
        /^tms: no request to http:\/\/127\.0\.0\.1:\d+ has succeeded for TMS_PATIENCE_SECONDS/,
      ),
      expect.stringMatching(/^runs: the latest run of every partition failed \(1; invoices: /),
    ]);
    expect((await get(`${running.opsUrl}/healthz`)).status).toBe(200);
  }, 40_000);
});
