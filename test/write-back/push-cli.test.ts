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

  it('checks a body where the spec says what it is: a payment amount is a number, its date a calendar date', async () => {
    const add = (body: object) =>
      cli('command', 'add', 'record_payment', invoice, '--body', JSON.stringify(body));
    const abc = await add({ amount: 'abc', date: '2026-11-20', reference: 'R-1' });
    expect(abc.stderr).toBe(
      'tms-sync command add: body field "amount" must be a JSON number (125.50), got "abc"\n',
    );
    expect(abc.code).toBe(2);
    const day = await add({ amount: 1, date: '2026-02-30', reference: 'R-1' });
    expect(day).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('"date" must be a calendar date YYYY-MM-DD'),
    });
    const none = await add({ date: '2026-11-20', reference: 'R-1' });
    expect(none).toMatchObject({ code: 2, stderr: expect.stringContaining('body needs "amount"') });
    const phone = await cli('command', 'add', 'patch_client', '1', '--body', '{"phone": 612345678}');
    expect(phone).toMatchObject({ code: 2, stderr: expect.stringContaining('"phone" must be a string') });
  });
});

describe('tms-sync command add against what the mirror holds', () => {
  let mirror: NodeJS.ProcessEnv;
  const onMirror = (...args: string[]) => runCli(args, mirror, 60_000);

  beforeAll(() => {
    mirror = { ...env, STORE_URL: `sqlite:${join(dir, 'mirror.sqlite')}` };
  });

  it('takes any target while the stream was never synced, then refuses one the mirror does not hold unless --allow-unknown-target', async () => {
    expect(await onMirror('command', 'add', 'finalize_invoice', 'NO-SUCH-1')).toMatchObject({ code: 0 });
    expect((await onMirror('sync', 'invoices')).code).toBe(0);
    const unknown = await onMirror('command', 'add', 'finalize_invoice', 'NO-SUCH-2');
    expect(unknown.stderr).toBe(
      'tms-sync command add: target NO-SUCH-2 is not in the mirror (no live row in invoices): check the id, sync invoices if it is new, or add --allow-unknown-target\n',
    );
    expect(unknown.code).toBe(2);
    expect(
      await onMirror('command', 'add', 'finalize_invoice', 'NO-SUCH-2', '--allow-unknown-target'),
    ).toMatchObject({ code: 0 });
    expect(await onMirror('command', 'add', 'finalize_invoice', invoice)).toMatchObject({ code: 0 });
    const commands = JSON.parse((await onMirror('commands', '--json')).stdout).commands as unknown[];
    expect(commands).toHaveLength(3);
  });

  it('notes the body fields the spec does not show for a payment, and adds it', async () => {
    const body = { amount: 5, date: '2026-11-21', reference: 'R-2', memo: 'by hand' };
    const added = await onMirror('command', 'add', 'record_payment', invoice, '--body', JSON.stringify(body));
    expect(added.code).toBe(0);
    expect(added.stderr).toBe(
      'note: record_payment: the spec shows no body field "memo": sent as it is; your TMS may refuse it (tms-sim does, 422)\n',
    );
  });

  it('`commands` shows the whole reason of a failure, wrapped; --json keeps it as it is', async () => {
    const reason = `HttpStatusError: POST /invoice/invoices/1/payments answered 422: ${'the amount exceeds what is open on the invoice; '.repeat(5)}END-OF-REASON`;
    const db = new BetterSqlite3(join(dir, 'mirror.sqlite'));
    db.prepare(
      "insert into tms_commands (kind, target, body, status, last_error) values ('finalize_invoice', '1', '{}', 'failed', ?)",
    ).run(reason);
    db.close();
    const listed = await onMirror('commands', '--status', 'failed');
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines.every((line) => line.length <= 100)).toBe(true);
    const shown = lines
      .filter((line) => line.startsWith('    '))
      .map((line) => line.trim())
      .join(' ');
    expect(shown).toBe(`last error: ${reason}`);
    const json = JSON.parse((await onMirror('commands', '--status', 'failed', '--json')).stdout);
    expect(json.commands[0].lastError).toBe(reason);
  });
});
