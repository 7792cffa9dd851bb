import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { runCli } from '../reliability/support/run-cli.js';
import { dialects } from '../store/store-fixture.js';
import { twoConnectionsEnv } from '../support/two-connections.js';

// Connections added, paused and removed through the CLI, kept in the control table
// tms_connections of the default connection's store, used by every command at once.

const postgres = dialects.find((dialect) => dialect.name === 'postgres')!.fixture();
const dir = mkdtempSync(join(tmpdir(), 'tms-connection-control-'));
let sim: SimHandle;

beforeAll(async () => {
  sim = await startSim({ accounts: 2, invoices: 30, clients: 5, operators: 1 });
});
afterAll(async () => {
  await sim.close();
  await postgres.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function setup(storeUrl: string): NodeJS.ProcessEnv {
  return {
    ...twoConnectionsEnv({ dir, simUrl: sim.url, storeUrl, streams: ['invoices'] }),
    GAMMA_TOKEN: 'dev-api-token-2',
  };
}

const listed = async (env: NodeJS.ProcessEnv) =>
  JSON.parse((await runCli(['connections', 'list', '--json'], env)).stdout) as Array<{
    name: string;
    source: string;
    paused: boolean;
    destination: string;
  }>;

/** The tables in connection gamma's destination: its own SQLite file, or its schema. */
async function destinationTables(kind: 'sqlite' | 'postgres', storeUrl: string): Promise<string[]> {
  if (kind === 'postgres')
    return (
      await postgres.query<{ name: string }>(
        storeUrl,
        "select table_name as name from information_schema.tables where table_schema = 'tms_gamma'",
      )
    ).map((row) => row.name);
  const db = new BetterSqlite3(join(dirname(storeUrl.slice('sqlite:'.length)), 'gamma.sqlite'), {
    readonly: true,
  });
  try {
    return (
      db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>
    ).map((row) => row.name);
  } finally {
    db.close();
  }
}

describe.each(['sqlite', 'postgres'] as const)('connections add|pause|resume|remove on %s', (kind) => {
  it('adds a connection every command then knows, pauses and resumes it, and removes it', async () => {
    const storeUrl =
      kind === 'sqlite'
        ? `sqlite:${join(mkdtempSync(join(dir, 'db-')), 'tms.sqlite')}`
        : await postgres.freshUrl();
    const env = setup(storeUrl);
    const added = await runCli(
      ['connections', 'add', 'gamma', '--api-token', 'env:GAMMA_TOKEN', '--operators', '1001'],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    // Its destination is migrated when `add` returns: a worker that picks it up has nothing to do first.
    expect(await destinationTables(kind, storeUrl)).toContain('invoices');
    expect((await listed(env)).map(({ name, source, paused }) => ({ name, source, paused }))).toEqual([
      { name: 'default', source: 'environment', paused: false },
      { name: 'beta', source: 'file', paused: false },
      { name: 'gamma', source: 'cli', paused: false },
    ]);
    const synced = await runCli(['sync', '--connection', 'gamma'], env, 60_000);
    expect(synced.code, synced.stderr + synced.stdout).toBe(0);
    const verified = await runCli(
      ['verify', '--sim-url', sim.url, '--sim-account', '2', '--connection', 'gamma', 'invoices'],
      env,
    );
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    if (kind === 'postgres') {
      const tables = await postgres.query<{ schema: string; name: string }>(
        storeUrl,
        "select table_schema as schema, table_name as name from information_schema.tables where table_name in ('tms_connections', 'invoices') order by 1, 2",
      );
      expect(tables).toEqual([
        { schema: 'public', name: 'tms_connections' },
        { schema: 'tms_gamma', name: 'invoices' },
        { schema: 'tms_gamma', name: 'tms_connections' },
      ]);
    }

    for (const [verb, paused] of [
      ['pause', true],
      ['resume', false],
      ['pause', true],
    ] as const) {
      for (const name of ['beta', 'gamma'])
        expect((await runCli(['connections', verb, name], env)).code).toBe(0);
      expect((await listed(env)).filter((item) => item.paused).map((item) => item.name)).toEqual(
        paused ? ['beta', 'gamma'] : [],
      );
    }

    expect((await runCli(['connections', 'remove', 'gamma'], env)).code).toBe(0);
    const gone = await runCli(['status', '--connection', 'gamma'], env);
    expect(gone.stderr).toContain('no connection "gamma" (known: default, beta)');
    expect(gone.code).toBe(2);
    const fromFile = await runCli(['connections', 'remove', 'beta'], env);
    expect(fromFile.stderr).toContain('connection "beta" is in the config file');
    expect(fromFile.code).toBe(2);
  }, 120_000);
});

describe('connections add', () => {
  it.each([
    [
      ['delta', '--api-token', 'a-plain-secret-token'],
      'connections.delta.apiToken: a token is never written in plain text',
    ],
    [['beta', '--api-token', 'env:X'], 'connection "beta" exists already'],
    [['delta'], 'connections.delta.apiToken: a connection needs its own API token'],
    [['Delta', '--api-token', 'env:X'], 'connections.Delta: a connection name is lower-case'],
    [['delta', '--api-token', 'env:X', '--store-url', 'SAME'], 'is connection "default"\'s too'],
    [['delta', '--api-token', 'env:X', '--entry', '{"operatorz": 1}'], 'connections.delta/operatorz'],
    [
      ['delta', '--api-token', 'env:X', '--store-url', 'sqlite:/proc/nowhere/delta.sqlite'],
      'it is in /proc/nowhere, which does not exist',
    ],
  ])('refuses %j with one line naming the setting, exit 2, storing nothing', async (args, problem) => {
    const storeUrl = `sqlite:${join(mkdtempSync(join(dir, 'refused-')), 'tms.sqlite')}`;
    const env = setup(storeUrl);
    const result = await runCli(
      ['connections', 'add', ...args.map((arg) => (arg === 'SAME' ? storeUrl : arg))],
      env,
    );
    expect(result.stderr).toContain(problem);
    expect(result.stderr).not.toContain('a-plain-secret-token');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.code).toBe(2);
    expect((await listed(env)).map((item) => item.name)).toEqual(['default', 'beta']);
  });
});

describe('the control table on PostgreSQL, as a container runs it (no USER, no PGUSER, no user in the URL)', () => {
  it('adds and lists connections as the OS user, as the stores connect', async () => {
    const url = new URL(await postgres.freshUrl());
    url.username = '';
    const env = setup(url.toString());
    delete env.USER;
    delete env.PGUSER;
    const added = await runCli(['connections', 'add', 'gamma', '--api-token', 'env:GAMMA_TOKEN'], env);
    expect(added.code, added.stderr).toBe(0);
    expect((await listed(env)).map((item) => item.name)).toEqual(['default', 'beta', 'gamma']);
  }, 60_000);
});
