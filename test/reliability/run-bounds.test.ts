import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSettings, type SyncSettings } from '../../config/settings.js';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import type { SimVariant } from '../../src/sim/sim-options.js';
import type { Store } from '../../src/store/store.js';
import { stateOf } from '../store/run-pages.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { type SyncSetup, startSyncSetup } from '../support/sync-setup.js';

// A listing that never ends, or a TMS that answers ever so slowly, cannot hold
// a run forever: each run has a bound, in pages and in time, and its error names the setting.
// Each case runs against tms-sim's default and another TMS's choices (docs/simulator.md).

const listing = '/invoice/invoices/';
const simulators: ReadonlyArray<readonly [string, Partial<SimVariant>]> = [
  ['default', {}],
  [
    'alt shapes + unsafe ids + renamed sequence field + a cursor on the last page',
    {
      recordShapes: 'alt',
      idStyle: 'unsafe',
      sequenceField: 'rev',
      cursorOnLastPage: true,
      tokenFormat: 'opaque',
    },
  ],
];
const cases = dialects.flatMap((dialect) =>
  simulators.map(([label, variant]) => ({ ...dialect, label, variant })),
);

describe.each(cases)('the bounds of a run on $name against $label', ({ fixture: makeFixture, variant }) => {
  const fixture: StoreFixture = makeFixture();
  let store: Store;
  let setup: SyncSetup;

  async function start(sync: Partial<SyncSettings>) {
    setup = await startSyncSetup(
      store,
      { invoices: 300, variant },
      { sync: { ...defaultSettings.sync, pageLimit: 50, ...sync } },
    );
    expect((await setup.engine.runPartition('invoices', '')).result).toBe('succeeded');
    await setup.admin.applyChanges(40, 5, { streams: ['invoices'], kinds: ['update'] });
  }

  beforeEach(async () => {
    store = await fixture.open();
  });
  afterEach(async () => {
    await setup?.close();
    await store.close();
  });
  afterAll(() => fixture.cleanup());

  it('stops a run whose listing hands out a new cursor with every page at sync.maxRunPages, and the next run converges', async () => {
    await start({ maxRunPages: 120 });
    const before = await stateOf(store, 'invoices', '');
    await setup.admin.setHostile({ mode: 'endless-cursor', path: listing, count: 1_000_000 });
    const bounded = await setup.engine.runPartition('invoices', '');
    expect(bounded.result).toBe('failed');
    expect(bounded.error).toMatch(/invoices: the run reached its bound of 120 pages \(sync\.maxRunPages\)/);
    expect(bounded.pages).toBe(120);
    expect((await stateOf(store, 'invoices', '')).watermark).toBe(before.watermark);

    await setup.admin.clearHostile();
    const healed = await setup.engine.runPartition('invoices', '');
    expect(healed.result).toBe('succeeded');
    expect(await differencesFromTruth(store, await setup.admin.truth('invoices'), ['invoices'])).toEqual([]);
  });

  it('runs a child stream over more parents than sync.maxRunPages: its pages are its parents, a queue that ends', async () => {
    await start({ maxRunPages: 120 });
    // Every one of the 300 invoices is a parent to fetch: 300 pages of invoice_lines.
    const lines = await setup.engine.runPartition('invoice_lines', '');
    expect(lines.result, lines.error ?? '').toBe('succeeded');
    expect(lines.pages).toBeGreaterThan(120);
    expect(
      await differencesFromTruth(store, await setup.admin.truth('invoice_lines'), ['invoice_lines']),
    ).toEqual([]);
  });

  it('stops a run that goes on too long at sync.maxRunSeconds, keeping what it committed', async () => {
    await start({ maxRunSeconds: 2 });
    const before = await stateOf(store, 'invoices', '');
    // Every answer takes 400 ms: a full run of 6 pages and the login would need about 3 s.
    await setup.admin.setFaults({ latencyMs: 400 });
    const started = Date.now();
    const bounded = await setup.engine.runPartition('invoices', '', { full: true });
    expect(Date.now() - started).toBeLessThan(3_500);
    expect(bounded.result).toBe('failed');
    expect(bounded.error).toMatch(/invoices: the run reached its bound of 2 s \(sync\.maxRunSeconds\)/);
    expect(bounded.pages).toBeGreaterThan(0);
    const after = await stateOf(store, 'invoices', '');
    expect(after.watermark).toBe(before.watermark);
    expect(after.cursor).not.toBeNull();

    await setup.admin.setFaults({});
    expect((await setup.engine.runPartition('invoices', '')).result).toBe('succeeded');
    expect(await differencesFromTruth(store, await setup.admin.truth('invoices'), ['invoices'])).toEqual([]);
  });
});
