import { describe, expect, it } from 'vitest';
import { readStatus } from '../../src/cli/stream-status.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { selectPartitions } from '../../src/sync/select-partitions.js';
import { testSettings } from '../jobs/support/queue-fixture.js';
import { runCli } from '../reliability/support/run-cli.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { describeOnEachDialect, useSyncSetup } from '../support/on-each-dialect.js';
import { recordRun as recordRunOf } from '../support/record-run.js';

describeOnEachDialect('status', (fixture) => {
  const { store, setup } = useSyncSetup(fixture);

  const line = async (stream: string, partition = '') =>
    (await readStatus(store(), new Date(), selectPartitions([], setup().settings))).partitions.find(
      (item) => item.stream === stream && item.partition === partition,
    )!;

  it("shows a child stream's waiting parents, and that a backfill left every parent to refresh", async () => {
    await setup().engine.run(['invoices']);
    const invoices = await line('invoices');
    expect(invoices.watermark).not.toBeNull();
    expect(invoices.lastRun?.result).toBe('succeeded');
    expect(invoices.pending).toBeUndefined();
    const deleted = await store().countRows('invoices', { live: false });
    expect((await line('invoice_lines')).pending).toEqual({
      queuedParents: deleted,
      everyParent: true,
      leftParents: 0,
      lastError: null,
    });
    await setup().engine.run(['invoice_lines']);
    expect((await line('invoice_lines')).pending).toBeUndefined();
    expect((await line('invoice_payments')).pending).toEqual({
      queuedParents: deleted,
      everyParent: true,
      leftParents: 0,
      lastError: null,
    });
  });
});

/** One finished run of a partition, `minutesAgo` before now, that wrote 3 rows and rewrote 2. */
function recordRun(
  store: Store,
  fixture: StoreFixture,
  url: string,
  label: string,
  result: 'succeeded' | 'failed' | 'interrupted',
  minutesAgo: number,
  error: string | null = null,
) {
  const startedAt = new Date(Date.now() - minutesAgo * 60_000);
  const counts = { pages: 1, inserted: 3, updated: 2 };
  return recordRunOf(store, fixture, url, { label, result, error, startedAt, counts });
}

describe.each(dialects)('status for operators on $name', ({ fixture: makeFixture }) => {
  const fixture = makeFixture();
  // Redis is not needed for the store's side; a port nothing listens on keeps the test fast.
  const env = (storeUrl: string) => ({
    STORE_URL: storeUrl,
    REDIS_URL: 'redis://127.0.0.1:1',
    TMS_OPERATORS: '1001',
  });
  const configured = selectPartitions([], testSettings({ TMS_OPERATORS: '1001' })).partitions.map((item) =>
    item.partition ? `${item.stream}/${item.partition}` : item.stream,
  );

  it('shows the error of a failed run, "never" for a partition that never succeeded, and only configured partitions', async () => {
    const url = await fixture.freshUrl();
    const store = await openStore(url);
    await recordRun(store, fixture, url, 'invoices', 'succeeded', 3);
    await recordRun(store, fixture, url, 'clients', 'succeeded', 90);
    await recordRun(
      store,
      fixture,
      url,
      'clients',
      'failed',
      2,
      'HttpStatusError: GET /client/clients/ answered 500 (5 attempts)',
    );
    await recordRun(store, fixture, url, 'tasks/9999', 'succeeded', 1);
    await store.close();
    const result = await runCli(['status'], env(url));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^stream +watermark +last run +result +written +lag +pending$/m);
    expect(result.stdout).toMatch(/^invoices +\S+ +succeeded +5 +3m( \d+s)?\s*$/m);
    expect(result.stdout).toMatch(/^clients +\S+ +failed +5 +1h 3\dm\s*$/m);
    expect(result.stdout).toMatch(/^addressbook +never +never\s*$/m);
    expect(result.stdout).toContain(
      'latest run failed:\n  clients: HttpStatusError: GET /client/clients/ answered 500',
    );
    expect(result.stdout).not.toMatch(/^tasks\/9999/m);
    expect(result.stdout).toContain('in the store but no longer configured (not shown): tasks/9999');
    expect(result.stdout).toMatch(/^tasks\/1001 +never +never/m);
    // Piped (as here), --json is one line: jq and monitors read it, and 20,000 partitions indented are 11 MB.
    const piped = (await runCli(['status', '--json'], env(url))).stdout;
    expect(piped.trimEnd().split('\n')).toHaveLength(1);
    const json = JSON.parse(piped);
    expect(
      json.streams.map((item: { stream: string; partition: string }) =>
        item.partition ? `${item.stream}/${item.partition}` : item.stream,
      ),
    ).toEqual(configured);
    expect(json.unconfigured).toEqual(['tasks/9999']);
  }, 60_000);

  it('status --max-lag exits 1 naming each stale, failing or never-succeeded partition, and 0 when all are fresh (an interrupted run is no failure)', async () => {
    const url = await fixture.freshUrl();
    const store = await openStore(url);
    for (const label of configured) await recordRun(store, fixture, url, label, 'succeeded', 5);
    // A graceful stop interrupted the latest run: it resumes, it is no failure.
    await recordRun(store, fixture, url, 'invoices', 'interrupted', 1, 'stopped');
    await store.close();
    const fresh = await runCli(['status', '--max-lag', '15m'], env(url));
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toContain(`check: all ${configured.length} partitions succeeded within 15m`);
    const stricter = await runCli(['status', '--max-lag', '4m'], env(url));
    expect(stricter.code).toBe(1);
    expect(stricter.stdout).toContain(
      `check: ${configured.length} of ${configured.length} partitions need attention`,
    );
    expect(stricter.stdout).toMatch(/^ {2}STALE {2}invoices: last success 5m( \d+s)? ago \(more than 4m\)$/m);

    const again = await openStore(url);
    await recordRun(again, fixture, url, 'tasks/1001', 'failed', 1, 'SyncProtocolError: boom');
    await again.close();
    await fixture.query(url, "delete from sync_runs where stream = 'goods'");
    const failing = await runCli(['status', '--max-lag', '15m', '--json'], env(url));
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout).check).toEqual({
      maxLagSeconds: 900,
      problems: [
        {
          partition: 'tasks/1001',
          kind: 'failed',
          detail: expect.stringMatching(/^last success 5m.* ago; SyncProtocolError: boom$/),
        },
        { partition: 'goods/1001', kind: 'never', detail: 'never ran' },
      ],
    });
    const usage = await runCli(['status', '--max-lag', 'soon'], env(url));
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--max-lag soon: not a duration');
  }, 60_000);

  it('shows a stream of many operators as one row, its results counted, and each failure reason once', async () => {
    const url = await fixture.freshUrl();
    const store = await openStore(url);
    const operators = Array.from({ length: 12 }, (_, i) => String(1001 + i));
    for (const operator of operators.slice(0, 9))
      await recordRun(store, fixture, url, `tasks/${operator}`, 'succeeded', 4);
    for (const operator of operators.slice(9, 11))
      await recordRun(
        store,
        fixture,
        url,
        `tasks/${operator}`,
        'failed',
        1,
        'AuthError: the TMS refused the token',
      );
    await store.close();
    const result = await runCli(['status'], { ...env(url), TMS_OPERATORS: operators.join(',') });
    expect(result.stdout).toMatch(
      /^tasks \(12 partitions\) +\S+ +9 succeeded, 2 failed, 1 never ran +\d+ +4m( \d+s)? at most, 3 never\s*$/m,
    );
    expect(result.stdout).not.toMatch(/^tasks\/1001 /m);
    expect(result.stdout).toContain('  tasks/1010, tasks/1011: AuthError: the TMS refused the token');
  }, 60_000);
});
