import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { partitionLabel, type SyncJobData } from '../../jobs/sync-job.js';
import { type OpsServer, startOpsServer } from '../../src/ops/ops-server.js';
import { createSyncMetrics, type SyncMetrics } from '../../src/ops/sync-metrics.js';
import { signatureHeader, signBody } from '../../src/ops/webhook-signature.js';
import { captureLogger } from '../client/support/capture-logger.js';
import { summaryOf } from '../jobs/support/fake-engine.js';
import { type QueueFixture, queueFixture, silentLogger } from '../jobs/support/queue-fixture.js';

let fixture: QueueFixture;
let server: OpsServer | undefined;
let metrics: SyncMetrics | undefined;
afterEach(async () => {
  await server?.close();
  metrics?.close();
  server = undefined;
  await fixture?.cleanup();
});

const secret = 'webhook-secret';
const dashboardToken = 'dashboard-token';

async function start(
  storePing: () => Promise<void> = async () => undefined,
  { env = {}, logger = silentLogger }: { env?: NodeJS.ProcessEnv; logger?: Logger } = {},
) {
  fixture = queueFixture({
    OPS_PORT: '0',
    TMS_WEBHOOK_SECRET: secret,
    OPS_DASHBOARD_TOKEN: dashboardToken,
    TMS_OPERATORS: '7',
    ...env,
  });
  metrics = createSyncMetrics({
    jobCounts: () => fixture.queue.getJobCounts(),
    partitions: async () => [
      { stream: 'invoices', partition: '', lagSeconds: 42, lastRun: { result: 'succeeded' } },
      { stream: 'tasks', partition: '1001', lagSeconds: 900, lastRun: { result: 'failed' } },
      { stream: 'tasks', partition: '1002', lagSeconds: null, lastRun: null },
    ],
    workers: async () => [{ alive: true }, { alive: false }],
    heldDeletes: async () => [{ stream: 'tasks', scope: '7', wouldDelete: 140 }],
    traffic: () => ({
      requests: 10,
      sends: 13,
      retries: 3,
      rateLimited: 2,
      inFlight: 3,
      limit: 8,
      budgetWaitMs: 1500,
      pausedMs: 2000,
      breaker: 'closed',
    }),
  });
  server = await startOpsServer({
    settings: fixture.settings,
    queue: fixture.queue,
    redis: fixture.redis,
    store: { ping: storePing },
    metrics,
    logger,
  });
  return server.url;
}

function postWebhook(url: string, body: string, signature?: string) {
  return fetch(`${url}/webhooks/tms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature ? { [signatureHeader]: signature } : {}) },
    body,
  });
}

describe('ops server', () => {
  it('answers /healthz 200 when Redis and the store answer, 503 naming what does not', async () => {
    let storeUp = true;
    const url = await start(async () => {
      if (!storeUp) throw new Error('database is down');
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    storeUp = false;
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ checks: { redis: 'ok', store: 'database is down' } });
  });

  it('enqueues a webhook run of every partition of the named streams when the signature is right', async () => {
    const url = await start();
    const body = JSON.stringify({ streams: ['invoices', 'tasks'] });
    const response = await postWebhook(url, body, signBody(secret, body));
    expect(response.status).toBe(202);
    const jobs = await fixture.queue.getWaiting();
    expect(jobs.map((job) => partitionLabel(job.data as SyncJobData)).sort()).toEqual([
      'invoices',
      'invoices/deleted',
      'tasks/7',
    ]);
    expect(jobs.every((job) => job.data.trigger === 'webhook')).toBe(true);
  });

  it('honours "full" and "reconcile" in a webhook, and a partition name; refuses a key it does not know with 400', async () => {
    const url = await start();
    const body = JSON.stringify({ streams: ['clients', 'tasks/7'], full: true, reconcile: true });
    expect((await postWebhook(url, body, signBody(secret, body))).status).toBe(202);
    const jobs = await fixture.queue.getWaiting();
    expect(
      jobs
        .map((job) => job.data as SyncJobData)
        .map((data) => [partitionLabel(data), data.full, data.reconcile]),
    ).toEqual(
      expect.arrayContaining([
        ['clients', true, true],
        ['clients/deleted', true, true],
        ['tasks/7', true, true],
      ]),
    );
    expect(jobs).toHaveLength(3);
    for (const refused of [
      { streams: ['clients'], fullSync: true },
      { streams: ['clients'], full: 'yes' },
    ]) {
      const text = JSON.stringify(refused);
      const response = await postWebhook(url, text, signBody(secret, text));
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toContain('"full"?: boolean');
    }
    expect(await fixture.queue.getWaitingCount()).toBe(3);
  });

  it('rejects a webhook with a bad or missing signature with 401 and enqueues nothing', async () => {
    const url = await start();
    const body = JSON.stringify({ streams: ['invoices'] });
    expect((await postWebhook(url, body, signBody('wrong-secret', body))).status).toBe(401);
    expect((await postWebhook(url, body, signBody(secret, `${body} `))).status).toBe(401);
    expect((await postWebhook(url, body)).status).toBe(401);
    expect(await fixture.queue.getWaitingCount()).toBe(0);
  });

  it('refuses a signature without a timestamp (the old sha256= form) with 401 telling the form to use', async () => {
    const url = await start();
    const body = JSON.stringify({ streams: ['invoices'] });
    const oldForm = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const response = await postWebhook(url, body, oldForm);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toMatch(
      /sha256=<hmac> carries no timestamp .*t=<unix seconds>,v1=/,
    );
    expect(await fixture.queue.getWaitingCount()).toBe(0);
  });

  it('refuses a correctly signed webhook replayed after the tolerance of 300 s, or dated ahead by as much', async () => {
    const url = await start();
    const body = JSON.stringify({ streams: ['invoices'] });
    // Well past the bound either way: a loaded machine may take seconds between these requests.
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 400, now + 400]) {
      const response = await postWebhook(url, body, signBody(secret, body, timestamp));
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: string }).error).toMatch(/more than 300 s/);
    }
    expect((await postWebhook(url, body, signBody(secret, body, now - 200))).status).toBe(202);
  });

  it('answers 400 to a signed webhook naming an unknown stream', async () => {
    const url = await start();
    const body = JSON.stringify({ streams: ['nope'] });
    expect((await postWebhook(url, body, signBody(secret, body))).status).toBe(400);
  });

  it('keeps Bull Board behind the dashboard token', async () => {
    const url = await start();
    expect((await fetch(`${url}/admin/queues`)).status).toBe(401);
    expect((await fetch(`${url}/admin/queues?token=wrong`)).status).toBe(401);
    const withHeader = await fetch(`${url}/admin/queues`, {
      headers: { authorization: `Bearer ${dashboardToken}` },
    });
    expect(withHeader.status).toBe(200);
    expect(await withHeader.text()).toContain('<html');
    const withQuery = await fetch(`${url}/admin/queues?token=${dashboardToken}`);
    const cookie = withQuery.headers.get('set-cookie')!.split(';')[0]!;
    const api = await fetch(`${url}/admin/queues/api/queues`, { headers: { cookie } });
    expect(api.status).toBe(200);
    const names = ((await api.json()) as { queues: { name: string }[] }).queues.map((queue) => queue.name);
    expect(names).toEqual([fixture.settings.worker.queueName]);
  });

  it('answers 401, not 500, to a dashboard cookie that is not valid percent-encoding', async () => {
    const url = await start();
    for (const value of ['%', '%E0%A4%A', 'abc%zz']) {
      const response = await fetch(`${url}/admin/queues`, { headers: { cookie: `tms_ops_token=${value}` } });
      expect(response.status).toBe(401);
    }
  });

  it('warns that /metrics and /healthz are open when it listens beyond loopback (OPS_HOST=0.0.0.0)', async () => {
    const captured = captureLogger();
    await start(undefined, { env: { OPS_HOST: '0.0.0.0' }, logger: captured.logger });
    const warning = captured.lines.find((line) => line.includes('"level":40'));
    expect(warning).toMatch(/listens on 0\.0\.0\.0: \/healthz and \/metrics answer anyone/);
  });

  it('gives no such warning on loopback (the default)', async () => {
    const captured = captureLogger();
    await start(undefined, { logger: captured.logger });
    expect(captured.lines.filter((line) => line.includes('"level":40'))).toEqual([]);
  });

  it('serves Prometheus metrics that promtool accepts', async () => {
    const url = await start();
    metrics!.observeRun(
      summaryOf(
        { stream: 'invoices', partition: '' },
        { pages: 3, inserted: 250, updated: 50, deleted: 2, drift: 4, durationMs: 1500 },
      ),
    );
    metrics!.observeRetry('clients');
    const response = await fetch(`${url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('tms_sync_records_upserted_total{stream="invoices"} 300');
    expect(text).toContain('tms_sync_records_deleted_total{stream="invoices"} 2');
    expect(text).toContain('tms_sync_pages_total{stream="invoices"} 3');
    expect(text).toContain('tms_sync_job_retries_total{stream="clients"} 1');
    expect(text).toContain('tms_sync_column_drift_total{stream="invoices"} 4');
    expect(text).toContain('tms_sync_held_deletes{stream="tasks",scope="7"} 140');
    expect(text).toContain('tms_sync_watermark_lag_seconds{stream="invoices",partition=""} 42');
    expect(text).not.toContain('tms_sync_watermark_lag_seconds{stream="tasks",partition="1002"}');
    expect(text).toContain('tms_sync_partition_failing{stream="tasks",partition="1001"} 1');
    expect(text).toContain('tms_sync_partition_failing{stream="invoices",partition=""} 0');
    expect(text).toContain('tms_sync_partition_never_succeeded{stream="tasks",partition="1002"} 1');
    expect(text).toContain('tms_sync_partition_never_succeeded{stream="tasks",partition="1001"} 0');
    expect(text).toContain('tms_sync_workers_alive 1');
    expect(text).toMatch(/tms_sync_queue_jobs\{state="waiting"\} 0/);
    expect(text).toContain('tms_sync_tms_retries_total 3');
    expect(text).toContain('tms_sync_tms_rate_limited_total 2');
    expect(text).toContain('tms_sync_tms_requests_in_flight 3');
    expect(text).toContain('tms_sync_tms_concurrency_limit 8');
    expect(text).toContain('tms_sync_tms_budget_wait_seconds_total 1.5');
    expect(text).toContain('tms_sync_tms_paused_seconds_total 2');
    expect(text).toContain('tms_sync_tms_breaker_open 0');
    expect(text).toMatch(
      /tms_sync_run_duration_seconds_bucket\{le="2",stream="invoices",result="succeeded"\} 1/,
    );
    expectValidExposition(text);
  });
});

/** promtool when installed (apt package `prometheus`), else a strict line check of the text format. */
function expectValidExposition(text: string): void {
  const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (!promtool.error) {
    expect(promtool.stderr + promtool.stdout).toBe('');
    expect(promtool.status).toBe(0);
    return;
  }
  const sample =
    /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})? -?([0-9.e+-]+|NaN|\+Inf|-Inf)$/;
  for (const line of text.trimEnd().split('\n')) {
    if (line !== '' && !line.startsWith('# HELP ') && !line.startsWith('# TYPE '))
      expect(line).toMatch(sample);
  }
}
