import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { startSim } from '../../src/sim/start-sim.js';
import { runCli } from '../reliability/support/run-cli.js';
import { dialects } from '../store/store-fixture.js';
import { startSyncSetup } from '../support/sync-setup.js';

// Fail fast, once, with the setting named (docs/sync-engine.md, "Choices made here").

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const dir = mkdtempSync(join(tmpdir(), 'tms-fail-fast-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let stores = 0;
const freshStore = () => `sqlite:${join(dir, `store-${++stores}.sqlite`)}`;

describe('a wrong TMS_BASE_URL or TMS_API_TOKEN', () => {
  it('stops `sync` against a closed port at once with one line naming TMS_BASE_URL and the URL, exit 2', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const started = Date.now();
    const result = await runCli(['sync'], {
      TMS_BASE_URL: url,
      TMS_API_TOKEN: 'dev-api-token',
      TMS_OPERATORS: '1001',
      STORE_URL: freshStore(),
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('TMS_BASE_URL');
    expect(lines[0]).toContain(url);
    expect(lines[0]).toContain('ECONNREFUSED');
  });

  it('stops `sync` on a refused API token after one login request, one line naming TMS_API_TOKEN and the URL, never the token', async () => {
    const sim = await startSim({ invoices: 20, clients: 5, operators: 1 });
    try {
      const admin = createSimAdminClient({ url: sim.url });
      const result = await runCli(['sync'], {
        TMS_BASE_URL: sim.url,
        TMS_API_TOKEN: 'not-the-token-s3cret',
        TMS_OPERATORS: '1001',
        STORE_URL: freshStore(),
      });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/TMS_API_TOKEN: the TMS at .* refused the API token/);
      expect(lines[0]).toContain(sim.url);
      expect(result.stderr).not.toContain('s3cret');
      const logins = Object.values((await admin.requests())['POST /auth/login-api-token'] ?? {});
      expect(logins.reduce((a, b) => a + b, 0)).toBe(1);
    } finally {
      await sim.close();
    }
  });
});

describe('streams that read another stream', () => {
  const fixture = dialects[0].fixture();
  afterAll(() => fixture.cleanup());

  it('are skipped, naming the partition, when the stream they read failed in the same run', async () => {
    const store = await fixture.open();
    const setup = await startSyncSetup(store, { invoices: 30, clients: 5, operators: 1 });
    try {
      await setup.admin.setHostile({ mode: 'missing-data', path: '/invoice/invoices/', count: 1_000_000 });
      const summaries = await setup.engine.run(['invoices', 'invoice_lines', 'invoice_payments', 'clients']);
      const result = Object.fromEntries(summaries.map((s) => [`${s.stream}/${s.partition}`, s]));
      expect(result['invoices/']?.result).toBe('failed');
      expect(result['clients/']?.result).toBe('succeeded');
      for (const child of ['invoice_lines/', 'invoice_payments/']) {
        expect(result[child]?.result).toBe('skipped');
        expect(result[child]?.error).toMatch(/^invoices(\/deleted)? failed, and invoice_\w+ reads its rows$/);
        expect(result[child]?.runId).toBeNull();
      }
      expect((await store.listRuns()).map((run) => run.stream)).not.toContain('invoice_lines');
    } finally {
      await setup.close();
      await store.close();
    }
  });

  it('are skipped, saying so, when the stream they read was never synced (`sync invoice_lines goods` exits 0)', async () => {
    const sim = await startSim({ invoices: 20, clients: 5, operators: 1 });
    try {
      const result = await runCli(['sync', 'invoice_lines', 'goods'], {
        TMS_BASE_URL: sim.url,
        TMS_API_TOKEN: sim.options.apiToken,
        TMS_OPERATORS: '1001',
        STORE_URL: freshStore(),
        LOG_LEVEL: 'silent',
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/invoice_lines\s+skipped/);
      expect(result.stdout).toContain(
        'invoice_lines: skipped: invoices has never been synced (invoice_lines reads its rows): sync invoices first, or both together',
      );
      expect(result.stdout).toContain('goods/1001: skipped: tasks/1001 has never been synced');
    } finally {
      await sim.close();
    }
  });
});
