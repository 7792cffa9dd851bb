import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { runCli, verifyConnection } from '../reliability/support/run-cli.js';
import { dialects } from '../store/store-fixture.js';
import { twoConnectionsEnv } from '../support/two-connections.js';

// Connections as data. One simulator serves two accounts (tokens dev-api-token-1 and
// -2); the default connection is account 1, the connection "beta" account 2.

const postgres = dialects.find((dialect) => dialect.name === 'postgres')!.fixture();
const dir = mkdtempSync(join(tmpdir(), 'tms-connections-cli-'));
const cli = join(import.meta.dirname, '..', '..', 'dist', 'tms-sync.js');
let sim: SimHandle;

beforeAll(async () => {
  sim = await startSim({ accounts: 2, invoices: 40, clients: 8, operators: 1 });
});
afterAll(async () => {
  await sim.close();
  await postgres.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** A config file with the connection "beta" (its token from BETA_TOKEN), syncing invoices and clients. */
function setup(storeUrl: string): NodeJS.ProcessEnv {
  return twoConnectionsEnv({ dir, simUrl: sim.url, storeUrl, streams: ['invoices', 'clients'] });
}

const verify = (env: NodeJS.ProcessEnv, connection: string, account: number) =>
  verifyConnection({ simUrl: sim.url, account, connection, streams: ['invoices', 'clients'] }, env);

describe('sync --connection', () => {
  it("writes only into the connection's own SQLite file, beside the default's, with its own account's data", async () => {
    mkdirSync(join(dir, 'sqlite'));
    const env = setup(`sqlite:${join(dir, 'sqlite', 'tms.sqlite')}`);
    const beta = await runCli(['sync', '--connection', 'beta'], env, 60_000);
    expect(beta.code, beta.stderr + beta.stdout).toBe(0);
    expect(existsSync(join(dir, 'sqlite', 'beta.sqlite'))).toBe(true);
    expect(existsSync(join(dir, 'sqlite', 'tms.sqlite'))).toBe(false);
    const betaVerified = await verify(env, 'beta', 2);
    expect(betaVerified.code, betaVerified.stdout + betaVerified.stderr).toBe(0);
    const status = await runCli(['status', '--connection', 'beta', '--max-lag', '15m'], env);
    expect(status.stdout).toContain('check of connection beta: all 4 partitions succeeded within 15m');
    const json = JSON.parse((await runCli(['status', '--connection', 'beta', '--json'], env)).stdout);
    expect(json.connection).toBe('beta');

    const first = await runCli(['sync'], env, 60_000);
    expect(first.code, first.stderr + first.stdout).toBe(0);
    expect((await verify(env, 'default', 1)).code).toBe(0);
    // Each file holds its own account: the other account's truth differs from it.
    expect((await verify(env, 'beta', 1)).code).toBe(1);
    const invoices = (file: string) => {
      const db = new Database(join(dir, 'sqlite', file), { readonly: true });
      try {
        return db.prepare('select data from invoices order by id').pluck().all();
      } finally {
        db.close();
      }
    };
    expect(invoices('beta.sqlite')).not.toEqual(invoices('tms.sqlite'));
  }, 120_000);

  it("writes only into the connection's own PostgreSQL schema tms_<name>", async () => {
    const url = await postgres.freshUrl();
    const env = setup(url);
    const beta = await runCli(['sync', '--connection', 'beta'], env, 60_000);
    expect(beta.code, beta.stderr + beta.stdout).toBe(0);
    const schemas = await postgres.query<{ schema: string }>(
      url,
      "select distinct table_schema as schema from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')",
    );
    expect(schemas.map((row) => row.schema)).toEqual(['tms_beta']);
    expect((await verify(env, 'beta', 2)).code).toBe(0);

    expect((await runCli(['sync'], env, 60_000)).code).toBe(0);
    const [counts] = await postgres.query<{ beta: number; main: number }>(
      url,
      'select (select count(*) from tms_beta.invoices)::int as beta, (select count(*) from public.invoices)::int as main',
    );
    expect(counts!.beta).toBeGreaterThan(0);
    expect(counts!.main).toBeGreaterThan(0);
    expect((await verify(env, 'default', 1)).code).toBe(0);
    expect((await verify(env, 'beta', 2)).code).toBe(0);
  }, 120_000);

  it("names the connection's own setting when its TMS refuses its token, exit 2", async () => {
    const env = { ...setup(`sqlite:${join(dir, 'refused.sqlite')}`), BETA_TOKEN: 'not-a-token-of-the-sim' };
    const result = await runCli(['sync', '--connection', 'beta'], env, 60_000);
    expect(result.stderr).toContain('connections.beta.apiToken: the TMS at');
    expect(result.stderr).not.toContain('not-a-token-of-the-sim');
    expect(result.code).toBe(2);
  });

  it('refuses an unknown connection with the known names, exit 2, given by --connection or TMS_CONNECTION', async () => {
    const env = setup(`sqlite:${join(dir, 'x.sqlite')}`);
    for (const result of [
      await runCli(['status', '--connection', 'betta'], env),
      await runCli(['status'], { ...env, TMS_CONNECTION: 'betta' }),
    ]) {
      expect(result.stderr).toContain('no connection "betta" (known: default, beta); did you mean "beta"?');
      expect(result.code).toBe(2);
    }
  });
});

describe('connections', () => {
  it('lists the connections with their destinations and never a token', async () => {
    const key = spawnSync(process.execPath, [cli, 'connections', 'generate-key'], {
      encoding: 'utf8',
    }).stdout.trim();
    const encrypted = spawnSync(process.execPath, [cli, 'connections', 'encrypt-token'], {
      input: 'gamma-secret-token\n',
      encoding: 'utf8',
      env: { PATH: process.env.PATH, TMS_CONNECTIONS_KEY: key },
    });
    expect(encrypted.status, encrypted.stderr).toBe(0);
    expect(encrypted.stdout).toMatch(/^enc:v1:[\w-]+\n$/);
    expect(encrypted.stdout).not.toContain('gamma-secret-token');

    const config = join(dir, 'list.jsonc');
    const connections = {
      beta: { apiToken: 'env:BETA_TOKEN', operators: ['7'] },
      gamma: { apiToken: encrypted.stdout.trim(), baseUrl: 'https://gamma.example.com', paused: true },
    };
    // A password in the store's URL (trust authentication ignores it) is never shown either.
    const storeUrl = Object.assign(new URL(await postgres.freshUrl()), { password: 'pw-secret' }).toString();
    writeFileSync(config, JSON.stringify({ storeUrl, connections }));
    const env = {
      TMS_SYNC_CONFIG: config,
      TMS_BASE_URL: 'https://tms.example.com',
      TMS_API_TOKEN: 'default-secret-token',
      BETA_TOKEN: 'beta-secret-token',
      TMS_CONNECTIONS_KEY: key,
    };
    const table = await runCli(['connections', 'list'], env);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^connection +source +tms host +destination +streams/);
    const listed = await runCli(['connections', 'list', '--json'], env);
    for (const output of [table.stdout, listed.stdout]) {
      for (const secret of [
        'default-secret-token',
        'beta-secret-token',
        'gamma-secret-token',
        key,
        'pw-secret',
      ])
        expect(output).not.toContain(secret);
    }
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        name: 'default',
        host: 'tms.example.com',
        destination: expect.stringMatching(/^postgres:\/\/127\.0\.0\.1:5432\/\w+ schema public$/),
        paused: false,
        token: 'TMS_API_TOKEN',
      }),
      expect.objectContaining({
        name: 'beta',
        destination: expect.stringMatching(/ schema tms_beta$/),
        operators: 1,
        token: 'env:BETA_TOKEN',
      }),
      expect.objectContaining({
        name: 'gamma',
        host: 'gamma.example.com',
        streams: 27,
        paused: true,
        token: 'encrypted',
      }),
    ]);
  });
});
