import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { runCli } from '../reliability/support/run-cli.js';

let sim: SimHandle;
let dir: string;
let env: NodeJS.ProcessEnv;
let invoice: string;

beforeAll(async () => {
  sim = await startSim({ invoices: 20, clients: 5, operators: 1 });
  dir = mkdtempSync(join(tmpdir(), 'tms-push-'));
  env = {
    TMS_BASE_URL: sim.url,
    TMS_API_TOKEN: 'dev-api-token',
    STORE_URL: `sqlite:${join(dir, 'store.sqlite')}`,
    COMMANDS_RETRY_MS: '5',
    LOG_LEVEL: 'silent',
  };
  const invoices = (await createSimAdminClient({ url: sim.url }).truth('invoices')).invoices!['']!.records;
  invoice = (invoices as Array<{ id: string; status: string }>).find((row) => row.status === 'finalized')!.id;
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args, env, 60_000);

describe('tms-sync command, commands and push', () => {
  it('refuses a bad command at insert with one line and exit 2, adding nothing of a file with one bad entry', async () => {
    const missingTarget = await cli('command', 'add', 'record_payment', '--body', '{"amount": 1}');
    expect(missingTarget).toMatchObject({ code: 2, stderr: expect.stringContaining('needs a target') });
    const file = join(dir, 'commands.json');
    writeFileSync(
      file,
      JSON.stringify([
        { kind: 'finalize_invoice', target: invoice },
        { kind: 'pay_twice', target: '1' },
      ]),
    );
    const refused = await cli('command', 'add', '--file', file);
    expect(refused).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(`${file}[1]: unknown kind "pay_twice"`),
    });
    expect((await cli('commands')).stdout).toBe('no commands\n');
  });

  it('delivers what was added, exits 0, and names the streams to sync', async () => {
    const body = JSON.stringify({ amount: 99.5, date: '2026-11-20', reference: 'CLI-1' });
    expect(await cli('command', 'add', 'record_payment', invoice, '--body', body)).toMatchObject({ code: 0 });
    const pushed = await cli('push');
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toMatch(/record_payment\s+\S+\s+done\s+1\s+\S+-P\d+/);
    expect(pushed.stdout).toContain('tms-sync sync invoices invoice_payments');
  });

  it('exits 1 and warns while a command needs review, until a person resolves it', async () => {
    // What a create without a match key whose answer was lost leaves (command-attempt.ts; deliver.test.ts).
    const store = new BetterSqlite3(join(dir, 'store.sqlite'));
    store
      .prepare(
        "insert into tms_commands (kind, body, status, in_doubt, lane, last_error) values ('create_client', '{\"name\": \"No Key Ltd\"}', 'needs_review', 1, 'new-client:#9', 'names no match key')",
      )
      .run();
    store.close();
    const pushed = await cli('push');
    expect(pushed).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('warning: 1 command needs review'),
    });
    const listed = await cli('commands', '--status', 'needs_review', '--json');
    const [command] = JSON.parse(listed.stdout).commands as Array<{ id: number }>;
    const status = await cli('status');
    expect(status.stdout).toMatch(/create_client\s+1\s/);
    expect(status.stdout).toContain('warning: 1 command needs review');
    expect(await cli('command', 'resolve', String(command!.id), 'done', '--created-id', 'C1')).toMatchObject({
      code: 0,
    });
    expect(await cli('push')).toMatchObject({ code: 0, stdout: 'no commands to deliver\n' });
  }, 60_000);
});
