import { afterAll, describe, expect, it } from 'vitest';
import { defaultSettings, type Settings } from '../../config/settings.js';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import { readStatus } from '../../src/cli/stream-status.js';
import type { StartSimOptions } from '../../src/sim/start-sim.js';
import type { PartitionSummary } from '../../src/sync/run-options.js';
import { selectPartitions } from '../../src/sync/select-partitions.js';
import { dialects } from '../store/store-fixture.js';
import { startSyncSetup } from '../support/sync-setup.js';

// Whether to go on is decided by whether the TMS answers at all, and a fault costs at
// most the request (or the parent) it hit. Each case runs against the default simulator and a
// variant that makes other choices where docs/api.md leaves the choice open.

const small = { invoices: 60, clients: 15, operators: 1 } as const;
const variants: StartSimOptions[] = [
  {},
  { variant: { errorBody: 'text', tokenFormat: 'opaque', idStyle: 'unsafe', recordShapes: 'alt' } },
];
const tmsSettings = (tms: Partial<Settings['tms']>): Partial<Settings> => ({
  tms: { ...defaultSettings.tms, ...tms },
});
const byStream = (summaries: readonly PartitionSummary[]) => {
  const found = new Map(summaries.map((s) => [`${s.stream}/${s.partition}`, s]));
  return (key: string) => found.get(key) ?? expect.fail(`no summary for ${key}`);
};

describe.each(variants)('patience under faults (simulator %j)', (variant) => {
  const fixture = dialects[0].fixture();
  afterAll(() => fixture.cleanup());

  it('ends every run within the patience plus one request ceiling when the TMS answers nothing but 5xx, committing nothing', async () => {
    const store = await fixture.open();
    const patienceSeconds = 2;
    const requestCeilingSeconds = 3;
    const setup = await startSyncSetup(
      store,
      { ...small, ...variant },
      tmsSettings({ patienceSeconds, requestCeilingSeconds }),
    );
    try {
      expect((await setup.engine.run([])).every((s) => s.result === 'succeeded')).toBe(true);
      const before = await store.listStates();
      await setup.admin.applyChanges(30, 5);
      await setup.admin.setFaults({ serverError: 1 });
      const started = Date.now();
      const summaries = await setup.engine.run([]);
      const elapsedMs = Date.now() - started;
      expect(elapsedMs).toBeLessThan((patienceSeconds + requestCeilingSeconds) * 1000 + 1500);
      // A stream reading one whose run failed (a child, the goods of the tasks) is skipped, naming it.
      const [skipped, failed] = [
        summaries.filter((s) => s.result === 'skipped'),
        summaries.filter((s) => s.result !== 'skipped'),
      ];
      expect(skipped.map((s) => s.stream)).toContain('invoice_lines');
      for (const summary of skipped) expect(summary.error).toMatch(/ failed, and \w+ reads its rows$/);
      expect(failed.every((s) => s.result === 'failed')).toBe(true);
      // The requests under way when the TMS stopped answering give up at their ceiling; once the
      // breaker opens every other one fails at once. Each error names the URL, the answer, the setting.
      expect(failed.some((s) => s.error?.includes('TMS_PATIENCE_SECONDS'))).toBe(true);
      for (const summary of failed) {
        expect(summary.error).toMatch(/TMS_PATIENCE_SECONDS|TMS_REQUEST_CEILING_SECONDS/);
        expect(summary.error).toContain(setup.sim.url);
        expect(summary.error).toMatch(/50\d/);
      }
      const after = await store.listStates();
      expect(after.map((s) => [s.stream, s.partition, s.watermark])).toEqual(
        before.map((s) => [s.stream, s.partition, s.watermark]),
      );
    } finally {
      await setup.close();
      await store.close();
    }
  }, 60_000);

  it("stores every other parent's children when one parent's child listing always fails, and completes it in the next run", async () => {
    const store = await fixture.open();
    const setup = await startSyncSetup(
      store,
      { ...small, ...variant },
      tmsSettings({ requestCeilingSeconds: 1 }),
    );
    try {
      const listed = (await setup.admin.truth('invoices')).invoices?.['']?.records ?? [];
      const ids = listed.map((record) => String((record as { id: unknown }).id));
      // A path prefix that names one invoice only: an id that starts no other id.
      const failing = ids.find((id) => !ids.some((other) => other !== id && other.startsWith(id)))!;
      const path = `/invoice/invoices/${encodeURIComponent(failing)}`;
      await setup.admin.setHostile({ mode: 'html-502', path, count: 1_000_000 });
      const children = ['invoice_lines', 'invoice_payments'];
      const first = byStream(await setup.engine.run(['invoices', ...children]));
      expect(first('invoices/').result).toBe('succeeded');
      for (const child of children) {
        expect(first(`${child}/`).result).toBe('failed');
        expect(first(`${child}/`).error).toContain('1 parent left');
        expect(first(`${child}/`).error).toContain(failing);
      }
      for (const child of children) {
        const status = (
          await readStatus(store, new Date(), selectPartitions([], setup.settings))
        ).partitions.find((line) => line.stream === child);
        expect(status?.pending).toMatchObject({ queuedParents: 1, leftParents: 1 });
        expect(status?.pending?.lastError).toContain(`parent ${failing}: HttpStatusError`);
      }
      const truth = await setup.admin.truth();
      const differences = await differencesFromTruth(store, truth, children);
      expect(differences.filter((line) => !line.includes(` ${failing}/`))).toEqual([]);

      await setup.admin.clearHostile();
      const requestsBefore = await setup.admin.requests();
      const second = await setup.engine.run(['invoices', ...children]);
      expect(second.filter((s) => s.result !== 'succeeded')).toEqual([]);
      expect(await differencesFromTruth(store, await setup.admin.truth(), ['invoices', ...children])).toEqual(
        [],
      );
      // Only the left parent's children are fetched again: one detail, one payments listing.
      const requestsAfter = await setup.admin.requests();
      const fetched = (route: string) =>
        Object.values(requestsAfter[route] ?? {}).reduce((a, b) => a + b, 0) -
        Object.values(requestsBefore[route] ?? {}).reduce((a, b) => a + b, 0);
      expect(fetched('GET /invoice/invoices/:invoiceId')).toBe(1);
      expect(fetched('GET /invoice/invoices/:invoiceId/payments')).toBe(1);
    } finally {
      await setup.close();
      await store.close();
    }
  }, 60_000);
});
