import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../config/load-settings.js';
import { refreshUnionViews } from '../../src/connections/union-views.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { runCli } from '../reliability/support/run-cli.js';
import { dialects } from '../store/store-fixture.js';

// BI across accounts (docs/connections.md). Each connection in its own schema, and views that union
// a stream over all of them with a `connection` column, so one query sums across accounts.

const postgres = dialects.find((dialect) => dialect.name === 'postgres')!.fixture();
const dir = mkdtempSync(join(tmpdir(), 'tms-connection-views-'));
let sim: SimHandle;

beforeAll(async () => {
  sim = await startSim({ accounts: 3, invoices: 25, clients: 6, operators: 1 });
});
afterAll(async () => {
  await sim.close();
  await postgres.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh database holding the default connection and `connections` (the invoices and the clients),
 * the default and beta synced from the simulator's first two accounts; the env of the CLI on it.
 */
async function syncedConnections(configName: string, connections: Record<string, object>) {
  const url = await postgres.freshUrl();
  const config = join(dir, configName);
  writeFileSync(
    config,
    JSON.stringify({ storeUrl: url, streams: { include: ['invoices', 'clients'] }, connections }),
  );
  const env = {
    TMS_SYNC_CONFIG: config,
    TMS_BASE_URL: sim.url,
    TMS_API_TOKEN: 'dev-api-token-1',
    BETA_TOKEN: 'dev-api-token-2',
    GAMMA_TOKEN: 'dev-api-token-3',
    LOG_LEVEL: 'silent',
  };
  for (const connection of ['default', 'beta'])
    expect((await runCli(['sync', '--connection', connection], env, 60_000)).code).toBe(0);
  return { url, env };
}

describe('connections views', () => {
  it('unions each stream over the connections of the database, with the connection of each row', async () => {
    const { url, env } = await syncedConnections('tms-sync.jsonc', {
      beta: { apiToken: 'env:BETA_TOKEN' },
      local: { apiToken: 'env:BETA_TOKEN', storeUrl: `sqlite:${join(dir, 'local.sqlite')}` },
    });
    const made = await runCli(['connections', 'views'], env);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain('over 2 connections (default, beta)');
    expect(made.stdout).toContain('left out: local (on SQLite)');

    const counts = async () =>
      postgres.query<{ connection: string; rows: number; sum: number }>(
        url,
        'select connection, count(*)::int as rows, sum(totals__gross_cents)::bigint as sum from tms_all.invoices_live group by connection order by connection',
      );
    const perSchema = async (schema: string) =>
      (
        await postgres.query<{ rows: number; sum: number }>(
          url,
          `select count(*)::int as rows, sum(totals__gross_cents)::bigint as sum from ${schema}.invoices_live`,
        )
      )[0]!;
    expect(await counts()).toEqual([
      { connection: 'beta', ...(await perSchema('tms_beta')) },
      { connection: 'default', ...(await perSchema('public')) },
    ]);

    // A connection added later is in the views once they are made again.
    expect((await runCli(['connections', 'add', 'gamma', '--api-token', 'env:GAMMA_TOKEN'], env)).code).toBe(
      0,
    );
    expect((await runCli(['sync', '--connection', 'gamma'], env, 60_000)).code).toBe(0);
    expect((await runCli(['connections', 'views', '--json'], env)).code).toBe(0);
    expect((await counts()).map((row) => row.connection)).toEqual(['beta', 'default', 'gamma']);
    const refused = await runCli(['connections', 'views', '--schema', 'tms_beta'], env);
    expect(refused.stderr).toContain('"tms_beta" holds connection "beta"\'s mirror');
    expect(refused.code).toBe(2);
  }, 120_000);

  it("a worker keeping them makes again only the views whose mirrors' columns changed", async () => {
    const { url, env } = await syncedConnections('kept-views.jsonc', {
      beta: { apiToken: 'env:BETA_TOKEN' },
    });
    const settings = loadSettings(env);
    const views = async () =>
      new Map(
        (
          await postgres.query<{ name: string; oid: number }>(
            url,
            "select c.relname as name, c.oid::int as oid from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'tms_all' and c.relkind = 'v'",
          )
        ).map((row) => [row.name, row.oid]),
      );

    // A worker's first making makes them all.
    const first = await refreshUnionViews(settings, { unlessFingerprint: '' });
    expect(first.made).toBe(true);
    expect(first.views.map((view) => view.name)).toEqual(
      expect.arrayContaining(['invoices', 'invoices_live', 'clients', 'clients_live']),
    );
    const before = await views();
    expect((await refreshUnionViews(settings, { unlessFingerprint: first.fingerprint })).made).toBe(false);

    // A new field of beta's clients (a column the store inferred): the clients view alone.
    await postgres.query(url, 'alter table tms_beta.clients add column loyalty_tier text');
    await postgres.query(url, 'alter table public.clients add column loyalty_tier text');
    const second = await refreshUnionViews(settings, { unlessFingerprint: first.fingerprint });
    expect(second.views.map((view) => view.name)).toEqual(['clients']);
    const after = await views();
    expect(after.get('clients')).not.toBe(before.get('clients'));
    for (const name of ['invoices', 'invoices_live', 'clients_live'])
      expect(after.get(name), name).toBe(before.get(name));
    const columns = await postgres.query<{ name: string }>(
      url,
      "select column_name as name from information_schema.columns where table_schema = 'tms_all' and table_name = 'clients'",
    );
    expect(columns.map((column) => column.name)).toContain('loyalty_tier');
    expect((await refreshUnionViews(settings, { unlessFingerprint: second.fingerprint })).made).toBe(false);
  }, 120_000);

  it("holds one view's locks at a time: a run adding a column to a mirror's table waits for no other view", async () => {
    const { url, env } = await syncedConnections('view-locks.jsonc', {
      beta: { apiToken: 'env:BETA_TOKEN' },
    });
    const session = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    };
    // Another session holds beta's clients table: the making waits at the clients view, after it
    // made the invoices views (the catalogue's first stream).
    const holder = await session();
    const adder = await session();
    try {
      await holder.query('begin');
      await holder.query('lock table tms_beta.clients in access exclusive mode');
      const making = refreshUnionViews(loadSettings(env));
      making.catch(() => undefined);
      // Polled from outside the holder's transaction: one sees the activity as it was at its start.
      const waitingAtClients = async () =>
        (
          await adder.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
             where wait_event_type = 'Lock' and query like '%"tms_all"."clients"%'`,
          )
        ).rows[0]!.n > 0;
      const until = Date.now() + 30_000;
      while (!(await waitingAtClients())) {
        expect(Date.now(), 'the making never reached the clients view').toBeLessThan(until);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // A run's new field of beta's invoices: its ALTER takes the table alone, at once.
      await adder.query("set lock_timeout = '2s'");
      await adder.query('alter table tms_beta.invoices add column lock_probe text');
      await holder.query('rollback');
      expect((await making).views.map((view) => view.name)).toEqual(
        expect.arrayContaining(['invoices', 'clients']),
      );
    } finally {
      await holder.end();
      await adder.end();
    }
  }, 120_000);
});
