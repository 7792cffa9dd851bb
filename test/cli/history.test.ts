import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { openStore } from '../../src/store/open-store.js';
import { scenarioVariants } from '../reliability/convergence/scenario.js';
import { runCli } from '../reliability/support/run-cli.js';

// History mode (docs/history.md), as a user types it, against every variant of the simulator the
// convergence property uses (record shapes, a renamed sequence field, unsafe ids, envelopes, tokens).

const dir = mkdtempSync(join(tmpdir(), 'tms-history-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function changeUpstream(sim: SimHandle, count: number): Promise<void> {
  const answer = await fetch(`${sim.url}/_sim/changes`, {
    method: 'POST',
    headers: { 'x-sim-admin': sim.options.adminToken, 'content-type': 'application/json' },
    body: JSON.stringify({ count, seed: 7, streams: ['invoices'] }),
  });
  expect(answer.ok).toBe(true);
}

/** An invoice with more than one version (it changed between the two syncs). */
async function changedInvoice(storeUrl: string): Promise<string> {
  const store = await openStore(storeUrl);
  try {
    const ids = (await store.readRows('invoices')).map((row) => row.id);
    const counts = await Promise.all(
      ids.map(async (id) => [id, (await store.history('invoices', { id })).length] as const),
    );
    return counts.find(([, count]) => count > 1)![0];
  } finally {
    await store.close();
  }
}

describe('tms-sync history', () => {
  it.each(scenarioVariants)(
    "switched on in the config, `sync` keeps every version and `history` prints a record's (%s)",
    async (label, variant) => {
      const sim = await startSim({ invoices: 40, clients: 5, operators: 1, variant });
      const at = join(dir, label.replace(/\W+/g, '-'));
      mkdirSync(at);
      try {
        const config = join(at, 'config.jsonc');
        writeFileSync(
          config,
          '{ "streams": { "include": ["invoices"], "invoices": { "history": true } } }\n',
        );
        const env = {
          TMS_BASE_URL: sim.url,
          TMS_API_TOKEN: sim.options.apiToken,
          STORE_URL: `sqlite:${join(at, 'store.sqlite')}`,
          TMS_SYNC_CONFIG: config,
          LOG_LEVEL: 'silent',
        };
        const migrated = await runCli(['migrate'], env);
        // A failed start says why (once in CI it printed nothing, and nothing said why).
        expect(migrated, `migrate: ${migrated.stderr}`).toMatchObject({ code: 0 });
        expect(migrated.stdout).toMatch(/^history invoices +history mode on: invoices__history$/m);
        expect((await runCli(['sync'], env)).code).toBe(0);
        await changeUpstream(sim, 60);
        expect((await runCli(['sync'], env)).code).toBe(0);
        const changed = await changedInvoice(env.STORE_URL);

        const printed = await runCli(['history', 'invoices', changed], env);
        expect(printed.code).toBe(0);
        const lines = printed.stdout.trimEnd().split('\n');
        expect(lines[0]).toMatch(/^valid_from +valid_to +change +run +sequence +deleted +changed$/);
        // The sequence column is empty where the records' sequence field has another name.
        expect(lines[1]).toMatch(/^\S+Z +\S+Z +insert +\d+( |$)/);
        expect(lines.at(-1)).toMatch(/\(current\) +(update|delete|restore) +\d+( |$)/);
        const json = JSON.parse((await runCli(['history', 'invoices', changed, '--json'], env)).stdout);
        expect(json.length).toBe(lines.length - 1);
        expect(json.at(-1)).toMatchObject({ id: changed, validTo: null });
        expect(json[0].validTo).toBe(json[1].validFrom);

        const unknown = await runCli(['history', 'invoices', 'no-such-invoice'], env);
        expect(unknown.code).not.toBe(0);
        expect(unknown.stderr).toContain('invoices: no versions of no-such-invoice');
      } finally {
        await sim.close();
      }
    },
    120_000,
  );

  it('`history` of a stream whose history was never on says how to switch it on', async () => {
    const env = { STORE_URL: `sqlite:${join(dir, 'off.sqlite')}`, LOG_LEVEL: 'silent' };
    const refused = await runCli(['history', 'clients', '1'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'history mode was never on for this stream (streams.history in the config)',
    );
  });

  it('`history` of a scoped stream names --scope when it is missing, and refuses it on a stream without one', async () => {
    const env = { STORE_URL: `sqlite:${join(dir, 'scopes.sqlite')}`, LOG_LEVEL: 'silent' };
    const missing = await runCli(['history', 'invoice_payments', '42'], env);
    expect(missing.stderr).toBe(
      "tms-sync history: invoice_payments records are keyed by invoice_id and id: name the record's invoice_id with --scope <invoice_id>\n",
    );
    expect(missing.code).toBe(2);
    const needless = await runCli(['history', 'invoices', '42', '--scope', '7'], env);
    expect(needless.stderr).toContain('invoices has no scope: leave --scope out');
    expect(needless.code).toBe(2);
  });
});
