import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptToken, generateConnectionsKey } from '../../config/connections/token-cipher.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { type QueueFixture, queueFixture } from '../jobs/support/queue-fixture.js';
import { exitWithin, spawnWorker } from '../jobs/support/worker-process.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { runCli } from './support/run-cli.js';

const apiToken = 'SECRET-API-TOKEN-xyz';
const wrongToken = 'SECRET-WRONG-TOKEN-abc';
const password = 'SECRET-PG-PASSWORD-xyz';
const dashboardToken = 'SECRET-DASHBOARD-xyz';
const connectionsKey = generateConnectionsKey();
// An access token (a JWT: base64url of '{"') in any form, or an Authorization header.
const leaks = [apiToken, wrongToken, password, dashboardToken, connectionsKey, /eyJ[\w-]{8,}/, /Bearer /i];

function findLeaks(text: string): string[] {
  return leaks
    .filter((leak) => (typeof leak === 'string' ? text.includes(leak) : leak.test(text)))
    .map(String);
}

describe('secrets', () => {
  const postgres: StoreFixture = dialects[1].fixture();
  let sim: SimHandle;
  let queue: QueueFixture;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    sim = await startSim({ apiToken, invoices: 200, clients: 30, operators: 1, seed: 5 });
    queue = queueFixture();
    const storeUrl = new URL(await postgres.freshUrl());
    // Trust authentication takes any password: the store opens and the password is there to leak.
    storeUrl.password = password;
    env = {
      TMS_BASE_URL: sim.url,
      TMS_API_TOKEN: apiToken,
      TMS_OPERATORS: '1001',
      STORE_URL: storeUrl.toString(),
      REDIS_URL: queue.settings.redisUrl,
      QUEUE_PREFIX: queue.prefix,
      OPS_DASHBOARD_TOKEN: dashboardToken,
      LOG_LEVEL: 'debug',
    };
  });
  afterAll(async () => {
    await queue?.cleanup();
    await sim?.close();
    await postgres.cleanup();
  });

  it('shows no token or password in the logs, errors and status of a full sync at debug level', async () => {
    const synced = await runCli(['sync'], env, 60_000);
    expect(synced.code).toBe(0);
    expect(synced.stderr).toContain('"level":20');
    const refused = await runCli(['sync', 'invoices'], { ...env, TMS_API_TOKEN: wrongToken });
    // Refused at the first login, before any run: one line naming the setting.
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('TMS_API_TOKEN');
    const status = await runCli(['status', '--json'], env);
    expect(status.code).toBe(0);

    for (const output of [synced, refused, status]) {
      expect(findLeaks(output.stdout + output.stderr)).toEqual([]);
    }
  });

  it('keeps secrets out of the worker logs and /metrics, serves the ops server on 127.0.0.1 and the dashboard only with its token', async () => {
    const worker = await spawnWorker(env);
    try {
      expect(worker.opsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
      const metrics = await (await fetch(`${worker.opsUrl}/metrics`)).text();
      expect(metrics).toContain('# TYPE');
      expect(findLeaks(metrics)).toEqual([]);
      expect((await fetch(`${worker.opsUrl}/admin/queues`)).status).toBe(401);
      expect(findLeaks(worker.lines.join('\n'))).toEqual([]);
    } finally {
      worker.child.kill('SIGTERM');
      await exitWithin(worker, 15_000);
    }
  });

  it("keeps a connection's token, read from an encrypted reference, and the key out of every output", async () => {
    const key = Buffer.from(connectionsKey, 'base64');
    const config = join(mkdtempSync(join(tmpdir(), 'tms-secrets-')), 'tms-sync.jsonc');
    const connections = {
      beta: { apiToken: encryptToken(apiToken, key), operators: ['1001'] },
      wrong: { apiToken: encryptToken(wrongToken, key) },
    };
    writeFileSync(config, JSON.stringify({ connections }));
    const withConnections = { ...env, TMS_SYNC_CONFIG: config, TMS_CONNECTIONS_KEY: connectionsKey };
    const synced = await runCli(['sync', '--connection', 'beta'], withConnections, 60_000);
    expect(synced.code, synced.stderr.slice(-2000)).toBe(0);
    expect(synced.stderr).toContain('"connection":"beta"');
    const refused = await runCli(['sync', 'invoices', '--connection', 'wrong'], withConnections);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('connections.wrong.apiToken');
    const listed = await runCli(['connections', 'list', '--json'], withConnections);
    expect(listed.code).toBe(0);
    for (const output of [synced, refused, listed]) {
      expect(findLeaks(output.stdout + output.stderr)).toEqual([]);
    }
  }, 90_000);
});
