import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { runCli } from '../reliability/support/run-cli.js';

// Write-back commands of two accounts never cross. Both accounts of the simulator have
// an invoice with the same id; a payment added for the connection "beta" reaches account 2 alone.

let sim: SimHandle;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sim = await startSim({ accounts: 2, invoices: 20, clients: 5, operators: 1 });
  dir = mkdtempSync(join(tmpdir(), 'tms-connection-write-back-'));
  const config = join(dir, 'tms-sync.jsonc');
  writeFileSync(
    config,
    JSON.stringify({
      storeUrl: `sqlite:${join(dir, 'tms.sqlite')}`,
      streams: { include: ['invoices', 'invoice_payments'] },
      connections: { beta: { apiToken: 'env:BETA_TOKEN' } },
    }),
  );
  env = {
    TMS_SYNC_CONFIG: config,
    TMS_BASE_URL: sim.url,
    TMS_API_TOKEN: 'dev-api-token-1',
    BETA_TOKEN: 'dev-api-token-2',
    COMMANDS_RETRY_MS: '5',
    LOG_LEVEL: 'silent',
  };
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args, env, 60_000);
const references = async (account: number, invoice: string) =>
  (
    (await createSimAdminClient({ url: sim.url, account }).truth('invoice_payments')).invoice_payments![
      invoice
    ]!.records as Array<{ reference: string }>
  ).map((payment) => payment.reference);

describe('write-back with --connection', () => {
  it("adds to the connection's own outbox and delivers to its own account only", async () => {
    const invoices = (await createSimAdminClient({ url: sim.url, account: 2 }).truth('invoices')).invoices![
      ''
    ]!.records as Array<{ id: string; status: string }>;
    const invoice = invoices.find((row) => row.status === 'finalized')!.id;
    expect((await cli('sync', '--connection', 'beta', 'invoices')).code).toBe(0);

    const body = JSON.stringify({ amount: 12.5, date: '2026-11-20', reference: 'BETA-1' });
    const added = await cli(
      'command',
      'add',
      'record_payment',
      invoice,
      '--body',
      body,
      '--connection',
      'beta',
    );
    expect(added.code, added.stderr).toBe(0);
    expect((await cli('commands')).stdout).toBe('no commands\n');
    expect((await cli('push')).code).toBe(0);
    expect(await references(2, invoice)).not.toContain('BETA-1');

    const pushed = await cli('push', '--connection', 'beta');
    expect(pushed.code, pushed.stdout + pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(/record_payment\s+\S+\s+done/);
    expect(await references(2, invoice)).toContain('BETA-1');
    expect(await references(1, invoice)).not.toContain('BETA-1');
    const listed = JSON.parse((await cli('commands', '--connection', 'beta', '--json')).stdout) as {
      commands: Array<{ status: string }>;
    };
    expect(listed.commands.map((command) => command.status)).toEqual(['done']);
  }, 120_000);
});
