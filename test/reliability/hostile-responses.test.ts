import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../config/settings.js';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import type { HostileMode } from '../../src/sim/sim-admin-client.js';
import type { StoreVerbs } from '../../src/store/store.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { type SyncSetup, startSyncSetup } from '../support/sync-setup.js';

interface HostileCase {
  readonly mode: HostileMode;
  /** What the run's error must say. */
  readonly error: RegExp;
  /** Answers made hostile: more than the retries for faults the client retries. @default 1 */
  readonly count?: number;
}

const cases: readonly HostileCase[] = [
  { mode: 'invalid-json', error: /not valid JSON/ },
  { mode: 'wrong-types', error: /page envelope does not match its schema; \/data\/hasMore/ },
  { mode: 'missing-data', error: /page envelope does not match its schema; \/data/ },
  { mode: 'endless-empty', count: 100, error: /empty pages in a row still say hasMore/ },
  { mode: 'repeat-cursor', error: /cursor it had already returned/ },
  { mode: 'max-sequence-backwards', error: /maxSequence changed within a cycle/ },
  { mode: 'oversized-page', error: /holds 500 items, more than the limit of 50 asked for/ },
  { mode: 'html-502', count: 5, error: /answered 502: <html>.*Bad Gateway/ },
  { mode: 'cut-body', count: 5, error: /connection failed/ },
  { mode: 'stall-mid-body', count: 5, error: /no response body within the body timeout/ },
];

const listing = '/invoice/invoices/';
// Short waits so a fault the client retries gives up within a second.
const clientOptions = {
  retry: { attempts: 2, minDelayMs: 5, maxDelayMs: 20 },
  timeouts: { headersMs: 2_000, bodyMs: 300 },
};

describe.each(dialects)('a sync meeting a hostile page on $name', ({ fixture: makeFixture }) => {
  const fixture: StoreFixture = makeFixture();
  let store: StoreVerbs;
  let setup: SyncSetup;

  beforeEach(async () => {
    store = await fixture.open();
    setup = await startSyncSetup(
      store,
      { invoices: 400 },
      { sync: { ...defaultSettings.sync, pageLimit: 50 } },
      { clientOptions },
    );
  });
  afterEach(async () => {
    await setup.close();
    await store.close();
  });
  afterAll(() => fixture.cleanup());

  /** A backfill, then an incremental cycle of several pages stopped after its first: a checkpoint and a watermark. */
  async function midCycle(): Promise<void> {
    await setup.engine.runPartition('invoices', '');
    await setup.admin.applyChanges(150, 11, { streams: ['invoices'], kinds: ['update'] });
    const controller = new AbortController();
    const stopped = await setup.engine.runPartition('invoices', '', {
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    expect(stopped?.result).toBe('aborted');
  }

  const snapshot = async () => ({
    rows: await store.readRows('invoices'),
    state: await store.readState('invoices', ''),
  });

  it.each(cases)(
    'fails clearly on $mode, commits nothing of the page, keeps the watermark, then converges',
    async ({ mode, error, count }) => {
      await midCycle();
      const before = await snapshot();
      expect(before.state.cursor).not.toBeNull();
      await setup.admin.setHostile({ mode, path: listing, count: count ?? 1 });

      const failed = await setup.engine.runPartition('invoices', '');
      expect(failed?.result).toBe('failed');
      expect(failed?.error).toMatch(error);
      expect(failed?.durationMs).toBeLessThan(5_000);
      expect(await snapshot()).toEqual(before);

      await setup.admin.clearHostile();
      const healed = await setup.engine.runPartition('invoices', '');
      expect(healed?.result).toBe('succeeded');
      expect(await differencesFromTruth(store, await setup.admin.truth('invoices'), ['invoices'])).toEqual(
        [],
      );
    },
  );
});
