import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { openStore } from '../../src/store/open-store.js';
import { runCli } from '../reliability/support/run-cli.js';
import { stateOf } from '../store/run-pages.js';

// Choosing what runs (README.md, "Choose what runs"), as a user types it.

const dir = mkdtempSync(join(tmpdir(), 'tms-choose-'));
let sim: SimHandle;
let stores = 0;
const env = () => ({
  TMS_BASE_URL: sim.url,
  TMS_API_TOKEN: sim.options.apiToken,
  STORE_URL: `sqlite:${join(dir, `store-${++stores}.sqlite`)}`,
  LOG_LEVEL: 'silent',
});

beforeAll(async () => {
  sim = await startSim({ invoices: 30, clients: 8, operators: 2 });
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('choosing what runs', () => {
  it('`sync` without TMS_OPERATORS skips the Driver API streams with one warning and exits 0', async () => {
    const result = await runCli(['sync'], env(), 60_000);
    expect(result.code).toBe(0);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^tms-sync sync: skipped 10 streams \(tasks, rides, .*\): no operators configured: set TMS_OPERATORS/,
      ),
    ]);
    expect(result.stdout).toMatch(/invoice_lines\s+succeeded/);
    expect(result.stdout).toMatch(/vehicles\s+succeeded/);
    expect(result.stdout).not.toMatch(/^tasks/m);
  }, 60_000);

  it('`sync` honours streams.include / streams.exclude of the config file; a partition name runs that partition', async () => {
    const config = join(dir, 'config.jsonc');
    writeFileSync(
      config,
      '{\n  // only the invoices\n  "streams": { "include": ["invoices", "invoice_lines", "tasks"], "exclude": ["tasks"] },\n}\n',
    );
    const run = env();
    const chosen = await runCli(['sync'], { ...run, TMS_SYNC_CONFIG: config, TMS_OPERATORS: '1001,1002' });
    expect(chosen.code).toBe(0);
    // The table's rows: from the header to the first blank line (the partition count follows it).
    const streams = chosen.stdout
      .split('\n\n')[0]!
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/)[0])
      .filter((name) => name && !name.includes(':'));
    expect(streams).toEqual(['invoices', 'invoices/deleted', 'invoice_lines']);
    const one = await runCli(['sync', 'tasks/1002'], { ...run, TMS_OPERATORS: '1001,1002' });
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^tasks\/1002\s+succeeded/m);
    expect(one.stdout).not.toContain('tasks/1001');
  });

  it('`reset tasks/1001 --data --yes` forgets that partition and deletes its rows only; without --yes and a terminal it deletes nothing', async () => {
    const run = { ...env(), TMS_OPERATORS: '1001,1002' };
    expect((await runCli(['sync', 'tasks'], run)).code).toBe(0);
    const store = await openStore(run.STORE_URL);
    try {
      const before = await store.countRows('tasks', { scope: '1002' });
      expect(before).toBeGreaterThan(0);
      const unasked = await runCli(['reset', 'tasks/1001', '--data'], run);
      expect(unasked.stderr).toBe(
        'tms-sync reset: --data deletes the rows of tasks/1001: add --yes to confirm (no terminal here to ask)\n',
      );
      expect(unasked.code).toBe(2);
      expect(await store.countRows('tasks', { scope: '1001' })).toBeGreaterThan(0);
      const reset = await runCli(['reset', 'tasks/1001', '--data', '--yes'], run);
      expect(reset.code).toBe(0);
      expect(reset.stdout).toMatch(/^tasks\/1001: reset \(1 partition, [\d,]+ rows deleted\)$/m);
      expect(await store.countRows('tasks', { scope: '1001' })).toBe(0);
      expect(await store.countRows('tasks', { scope: '1002' })).toBe(before);
      expect((await stateOf(store, 'tasks', '1001')).strategyState).toBeNull();
      const refused = await runCli(['reset', 'invoices/deleted', '--data', '--yes'], run);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('shares the invoices table');
    } finally {
      await store.close();
    }
  });

  it('`reset --data` on a terminal asks, naming the rows it would delete, and deletes only on yes', async () => {
    const run = { ...env(), TMS_OPERATORS: '1001' };
    expect((await runCli(['sync', 'tasks'], run)).code).toBe(0);
    const rows = async () => {
      const store = await openStore(run.STORE_URL);
      try {
        return await store.countRows('tasks');
      } finally {
        await store.close();
      }
    };
    const before = await rows();
    const declined = await onTerminal(['reset', 'tasks', '--data'], run, 'n');
    expect(declined.output).toContain(
      `delete the rows of tasks (${before.toLocaleString('en-US')} rows) from the store? [y/N]`,
    );
    expect(declined.output).toContain('nothing reset');
    expect(declined.code).toBe(1);
    expect(await rows()).toBe(before);
    const agreed = await onTerminal(['reset', 'tasks', '--data'], run, 'y');
    expect(agreed.output).toMatch(/tasks: reset \(1 partition, [\d,]+ rows deleted\)/);
    expect(agreed.code).toBe(0);
    expect(await rows()).toBe(0);
  });
});

/** Runs the CLI on a pseudo-terminal (util-linux `script`), typing `answer` once it asks. */
function onTerminal(args: readonly string[], env: NodeJS.ProcessEnv, answer: string) {
  const command = [process.execPath, join(import.meta.dirname, '..', '..', 'dist', 'tms-sync.js'), ...args]
    .map((part) => `'${part}'`)
    .join(' ');
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('[y/N]') && !child.stdin.writableEnded) child.stdin.end(`${answer}\n`);
    });
    child.on('exit', (code) => resolve({ code, output }));
  });
}
