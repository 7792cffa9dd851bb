import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { runCli } from '../reliability/support/run-cli.js';
import { dialects } from '../store/store-fixture.js';

// Two mirrors in one PostgreSQL database, each in its own schema, each holding
// the tables of its selected streams only.

const postgres = dialects.find((dialect) => dialect.name === 'postgres')!.fixture();
const dir = mkdtempSync(join(tmpdir(), 'tms-schema-'));
let sim: SimHandle;
let url: string;

beforeAll(async () => {
  sim = await startSim({ invoices: 40, clients: 8, operators: 1 });
  url = await postgres.freshUrl();
});
afterAll(async () => {
  await sim.close();
  await postgres.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const tms = () => ({ TMS_BASE_URL: sim.url, TMS_API_TOKEN: sim.options.apiToken, LOG_LEVEL: 'silent' });

describe('STORE_SCHEMA and ?schema= in STORE_URL', () => {
  it('put everything of a mirror, bookkeeping included, in its schema: two mirrors share a database', async () => {
    const onlyInvoices = join(dir, 'invoices.jsonc');
    writeFileSync(onlyInvoices, '{ "streams": { "include": ["invoices"] } }');
    const a = { ...tms(), STORE_URL: `${url}?schema=mirror_a` };
    const b = { ...tms(), STORE_URL: url, STORE_SCHEMA: 'mirror_b', TMS_SYNC_CONFIG: onlyInvoices };
    const synced = await runCli(['sync', 'invoices', 'clients'], a, 60_000);
    expect(synced.code, synced.stderr + synced.stdout).toBe(0);
    const other = await runCli(['sync'], b, 60_000);
    expect(other.code, other.stderr + other.stdout).toBe(0);

    const tables = await postgres.query<{ schema: string; name: string }>(
      url,
      "select table_schema as schema, table_name as name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema') order by 1, 2",
    );
    const inSchema = (schema: string) => tables.filter((row) => row.schema === schema).map((row) => row.name);
    expect(tables.map((row) => row.schema).filter((schema) => !schema.startsWith('mirror_'))).toEqual([]);
    expect(inSchema('mirror_a')).toEqual(
      expect.arrayContaining([
        'invoices',
        'clients',
        'sync_state',
        'sync_runs',
        'tms_commands',
        'kysely_migration',
      ]),
    );
    expect(inSchema('mirror_b')).toEqual(expect.arrayContaining(['invoices', 'invoices_live', 'sync_runs']));
    expect(inSchema('mirror_b')).not.toContain('clients');
    expect(inSchema('mirror_b')).not.toContain('tasks');
    const [counts] = await postgres.query<{ a: number; b: number }>(
      url,
      'select (select count(*) from mirror_a.invoices)::int as a, (select count(*) from mirror_b.invoices)::int as b',
    );
    expect(counts!.a).toBeGreaterThan(0);
    expect(counts!.b).toBe(counts!.a);
    const runsOf = async (env: NodeJS.ProcessEnv) =>
      (JSON.parse((await runCli(['runs', '--json'], env)).stdout) as Array<{ stream: string }>).map(
        (run) => run.stream,
      );
    expect(await runsOf(a)).toContain('clients');
    expect(await runsOf(b)).not.toContain('clients');
  }, 120_000);

  it.each([
    [{ STORE_SCHEMA: 'mirror_c' }, 'STORE_SCHEMA applies to a PostgreSQL store only', 'sqlite'],
    [{ STORE_SCHEMA: 'Mirror-C' }, 'STORE_SCHEMA "Mirror-C" is not a schema name tms-sync takes', 'postgres'],
    [
      { STORE_SCHEMA: 'mirror_c' },
      'STORE_SCHEMA "mirror_c" and STORE_URL\'s ?schema=mirror_a differ',
      'mirror_a',
    ],
  ])('refuses %j with one line naming the setting, exit 2', async (env, problem, store) => {
    const storeUrl =
      store === 'sqlite'
        ? `sqlite:${join(dir, 'x.sqlite')}`
        : store === 'postgres'
          ? url
          : `${url}?schema=${store}`;
    const result = await runCli(['status'], { STORE_URL: storeUrl, ...env });
    expect(result.stderr).toContain(problem);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.code).toBe(2);
  });
});
