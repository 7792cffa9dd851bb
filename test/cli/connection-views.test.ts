import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('connections views', () => {
  it('unions each stream over the connections of the database, with the connection of each row', async () => {
    const url = await postgres.freshUrl();
    const config = join(dir, 'tms-sync.jsonc');
    writeFileSync(
      config,
      JSON.stringify({
        storeUrl: url,
        streams: { include: ['invoices', 'clients'] },
        connections: {
          beta: { apiToken: 'env:BETA_TOKEN' },
          local: { apiToken: 'env:BETA_TOKEN', storeUrl: `sqlite:${join(dir, 'local.sqlite')}` },
        },
      }),
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
});
