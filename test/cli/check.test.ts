import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { selectPartitions } from '../../src/sync/select-partitions.js';
import { testSettings } from '../jobs/support/queue-fixture.js';
import { runCli } from '../reliability/support/run-cli.js';
import { freePort } from '../support/free-port.js';

// `tms-sync check`, as a user runs it before the first sync.

let sim: SimHandle;
const env = (overrides: NodeJS.ProcessEnv = {}) => ({
  TMS_BASE_URL: sim.url,
  TMS_API_TOKEN: sim.options.apiToken,
  TMS_OPERATORS: '1001,1002',
  ...overrides,
});
const lineOf = (stdout: string, what: string) =>
  stdout.split('\n').find((line) => line.split(/\s+/)[0] === what) ?? `(no line for ${what})`;

beforeAll(async () => {
  sim = await startSim({ invoices: 60, clients: 10, operators: 2 });
});
afterAll(() => sim.close());

describe('tms-sync check', () => {
  it('tries the connection, the login and every selected partition, one line each, exit 0 in under 5 s', async () => {
    const started = Date.now();
    const result = await runCli(['check'], env());
    const took = Date.now() - started;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(took).toBeLessThan(5000);
    const partitions = selectPartitions([], testSettings({ TMS_OPERATORS: '1001,1002' })).partitions;
    const labels = [
      'connection',
      'login',
      ...partitions.map((p) => (p.partition ? `${p.stream}/${p.partition}` : p.stream)),
    ];
    for (const label of labels) expect(lineOf(result.stdout, label)).toMatch(/^\S+\s+ok\s+/);
    expect(lineOf(result.stdout, 'invoices')).toMatch(/ok\s+10 records/);
    expect(lineOf(result.stdout, 'goods/1002')).toMatch(/ok\s+\d+ records?/);
    expect(result.stdout).toContain(`check: all ${labels.length} passed`);
  });

  it('names the setting of a refused token and stops before the streams, exit 1', async () => {
    const result = await runCli(['check'], env({ TMS_API_TOKEN: 'not-the-token' }));
    expect(result.code).toBe(1);
    expect(lineOf(result.stdout, 'connection')).toMatch(/\s+ok\s+/);
    expect(lineOf(result.stdout, 'login')).toMatch(/FAILED\s+.*TMS_API_TOKEN.*refused the API token/);
    expect(result.stdout).not.toMatch(/^invoices/m);
    expect(result.stdout).toContain('check: 1 of 2 FAILED');
  });

  it('names a TMS that is not there', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await runCli(['check'], env({ TMS_BASE_URL: closed }));
    expect(result.code).toBe(1);
    expect(lineOf(result.stdout, 'connection')).toContain(
      `FAILED  nothing answers at ${closed} (TMS_BASE_URL): ECONNREFUSED`,
    );
  });

  it("names a connection's own setting when its TMS is not there", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const dir = mkdtempSync(join(tmpdir(), 'tms-check-'));
    try {
      const config = join(dir, 'tms-sync.json');
      writeFileSync(
        config,
        JSON.stringify({ connections: { acme: { apiToken: 'env:ACME', baseUrl: closed } } }),
      );
      const result = await runCli(
        ['check', '--connection', 'acme'],
        env({ TMS_SYNC_CONFIG: config, ACME: 'x', STORE_URL: `sqlite:${join(dir, 'tms.sqlite')}` }),
      );
      expect(result.code).toBe(1);
      expect(lineOf(result.stdout, 'connection')).toContain(
        `FAILED  nothing answers at ${closed} (connections.acme.baseUrl): ECONNREFUSED`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports the stream whose first page is broken and the others as ok, exit 1', async () => {
    const admin = createSimAdminClient({ url: sim.url });
    await admin.setHostile({ mode: 'invalid-json', path: '/client/addressbook/', count: 100 });
    try {
      const result = await runCli(['check'], env());
      expect(result.code).toBe(1);
      expect(lineOf(result.stdout, 'addressbook')).toMatch(/FAILED\s+\S*Error/);
      expect(lineOf(result.stdout, 'clients')).toMatch(/\s+ok\s+/);
      expect(result.stdout).toMatch(/check: 1 of \d+ FAILED/);
    } finally {
      await admin.clearHostile();
    }
  });

  it('says what is missing in the configuration, exit 2', async () => {
    const result = await runCli(['check'], { TMS_API_TOKEN: 'x' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('TMS_BASE_URL');
  });
});
