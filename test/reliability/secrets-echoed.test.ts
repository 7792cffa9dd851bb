import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import {
  loginAnswer,
  type ScriptedServer,
  sendJson,
  startScriptedServer,
} from '../client/support/scripted-server.js';
import { type QueueFixture, queueFixture } from '../jobs/support/queue-fixture.js';
import { exitWithin, spawnWorker, writeWorkerConfig } from '../jobs/support/worker-process.js';
import { runCli } from './support/run-cli.js';

const apiToken = 'SECRET-API-TOKEN-echo1';
const accessToken = 'SECRET-ACCESS-TOKEN-echo2';
const dashboardToken = 'SECRET-DASHBOARD-echo3';
const webhookSecret = 'SECRET-WEBHOOK-echo4';
const redisPassword = 'SECRET-REDIS-PW-echo5';
const secrets = [apiToken, accessToken, dashboardToken, webhookSecret, redisPassword];

/** How the scripted TMS fails: its login repeats the request body in a 422, or every read repeats the secrets in a 500. */
type Mode = 'login-422' | 'read-500';

function leaksIn(text: string): string[] {
  return secrets.filter((secret) => text.includes(secret) || text.includes(encodeURIComponent(secret)));
}

describe('secrets the TMS repeats in its error answers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tms-secrets-echoed-'));
  const storeUrl = `sqlite:${join(dir, 'store.sqlite')}`;
  let mode: Mode = 'login-422';
  let server: ScriptedServer;
  let queue: QueueFixture;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    server = await startScriptedServer((request, _index, response) => {
      if (request.method === 'POST' && request.url.startsWith('/auth/')) {
        if (mode === 'login-422') {
          return sendJson(response, 422, { message: `invalid login request: ${request.body}` });
        }
        return loginAnswer(response, accessToken);
      }
      const echoed = `${request.headers.authorization} ${apiToken} ${dashboardToken} ${webhookSecret} ${redisPassword}`;
      return sendJson(response, 500, { error: { message: `internal error for ${echoed}` } });
    });
    queue = queueFixture();
    const redisUrl = new URL(queue.settings.redisUrl);
    // Redis here has no password: it refuses AUTH and ioredis carries on, so the password is there to leak.
    redisUrl.password = redisPassword;
    env = {
      TMS_BASE_URL: server.url,
      TMS_API_TOKEN: apiToken,
      OPS_DASHBOARD_TOKEN: dashboardToken,
      TMS_WEBHOOK_SECRET: webhookSecret,
      STORE_URL: storeUrl,
      REDIS_URL: redisUrl.toString(),
      QUEUE_PREFIX: queue.prefix,
      TMS_SYNC_CONFIG: writeWorkerConfig(dir, 50),
      TMS_REQUEST_CEILING_SECONDS: '1',
      TMS_PATIENCE_SECONDS: '1',
      JOB_ATTEMPTS: '1',
      LOG_LEVEL: 'debug',
    };
  });
  afterAll(async () => {
    await queue?.cleanup();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps them out of the output, the logs and sync_runs of a one-shot sync', async () => {
    mode = 'login-422';
    const refused = await runCli(['sync', 'invoices'], env);
    mode = 'read-500';
    const failing = await runCli(['sync', 'clients'], env);
    const status = await runCli(['status', '--json'], env);

    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('answered 422: invalid login request');
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('answered 500: internal error for');
    const store = await openStore(storeUrl, { migrate: false });
    const runs = await store.listRuns().finally(() => store.close());
    expect(runs.map((run) => run.error).join('\n')).toMatch(/422[\s\S]*500|500[\s\S]*422/);
    const surfaces = [refused, failing, status].flatMap((output) => [output.stdout, output.stderr]);
    surfaces.push(JSON.stringify(runs));
    expect(surfaces.flatMap(leaksIn)).toEqual([]);
  });

  it("keeps them out of a worker's logs and BullMQ's failedReason (which the dashboard and trigger --wait show)", async () => {
    // Before the worker starts: it logs in at start, and a token it holds would never meet the 422.
    mode = 'login-422';
    const worker = await spawnWorker(env);
    try {
      const refused = await runCli(['trigger', 'invoices', '--wait', '--timeout', '60'], env);
      mode = 'read-500';
      const failing = await runCli(['trigger', 'clients', '--wait', '--timeout', '60'], env);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain('answered 422');
      expect(failing.code).toBe(1);
      expect(failing.stdout).toContain('answered 500');
      const failed = await queue.queue.getFailed();
      expect(failed.length).toBeGreaterThanOrEqual(2);
      const reasons = failed.map((job) => `${job.failedReason}\n${(job.stacktrace ?? []).join('\n')}`);
      const surfaces = [refused.stdout, refused.stderr, failing.stdout, failing.stderr, ...reasons];
      surfaces.push(worker.lines.join('\n'));
      expect(surfaces.flatMap(leaksIn)).toEqual([]);
    } finally {
      worker.child.kill('SIGTERM');
      await exitWithin(worker, 15_000);
    }
  });
});
