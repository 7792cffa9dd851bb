import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../config/settings.js';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import type { HostileMode } from '../../src/sim/sim-admin-client.js';
import type { Store } from '../../src/store/store.js';
import { stateOf } from '../store/run-pages.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { type SyncSetup, startSyncSetup } from '../support/sync-setup.js';

interface HostileCase {
  readonly mode: HostileMode;
  /** What the run's error must say. */
  readonly error: RegExp;
  /** Answers made hostile: more than the retries for faults the client retries. @default 2 */
  readonly count?: number;
  /**
   * The engine refuses the page the checkpoint's cursor led to: the checkpoint is dropped (never
   * resumed from) and the cycle restarts once from the watermark, meeting the fault again.
   * Otherwise (the transfer failed) the state stays exactly as it was.
   */
  readonly refused: boolean;
}

const cases: readonly HostileCase[] = [
  { mode: 'invalid-json', refused: true, error: /not valid JSON/ },
  { mode: 'wrong-types', refused: true, error: /page envelope does not match its schema; \/data\/hasMore/ },
  { mode: 'missing-data', refused: true, error: /page envelope does not match its schema; \/data/ },
  { mode: 'endless-empty', refused: true, count: 100, error: /empty pages in a row still say hasMore/ },
  { mode: 'repeat-cursor', refused: true, error: /cursor it had already returned/ },
  {
    mode: 'max-sequence-backwards',
    refused: true,
    // The engine refuses the page after the paginator handed it over, by when the page after it
    // has been requested (and answered hostile too): the resumed page, that one, the restart's page.
    count: 3,
    error: /maxSequence \d+ is below the committed watermark/,
  },
  { mode: 'oversized-page', refused: true, error: /holds 500 items, more than the limit of 50 asked for/ },
  { mode: 'html-502', refused: false, count: 5, error: /answered 502: <html>.*Bad Gateway/ },
  { mode: 'cut-body', refused: false, count: 5, error: /connection failed/ },
  { mode: 'stall-mid-body', refused: false, count: 5, error: /no response body within the body timeout/ },
  {
    mode: 'deep-record',
    refused: false,
    error:
      /invoices: record \S+ cannot be stored: it is nested too deep to serialize; nothing of its page was stored/,
  },
  {
    mode: 'slow-drip',
    refused: false,
    count: 5,
    error: /answer did not end within 1.5 s \(the request timeout, set by TMS_REQUEST_TIMEOUT_SECONDS\)/,
  },
];

const listing = '/invoice/invoices/';
// Short waits so a fault the client retries gives up within a second.
const clientOptions = {
  retry: { attempts: 2, minDelayMs: 5, maxDelayMs: 20 },
  timeouts: { headersMs: 2_000, bodyMs: 300, totalMs: 1_500 },
};

describe.each(dialects)('a sync meeting a hostile page on $name', ({ fixture: makeFixture }) => {
  const fixture: StoreFixture = makeFixture();
  let store: Store;
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

  /**
   * A backfill, then an incremental cycle of several pages stopped after its first: a checkpoint
   * and a watermark. About ten pages: the pages already sent when the stop comes still commit (three
   * may wait behind the first, partition-run.ts), and the cycle must not end with them.
   */
  async function midCycle(): Promise<void> {
    await setup.engine.runPartition('invoices', '');
    await setup.admin.applyChanges(500, 11, { streams: ['invoices'], kinds: ['update'] });
    const controller = new AbortController();
    const stopped = await setup.engine.runPartition('invoices', '', {
      signal: controller.signal,
      onProgress: () => controller.abort(),
    });
    expect(stopped?.result).toBe('interrupted');
  }

  const snapshot = async () => ({
    rows: await store.readRows('invoices'),
    state: await stateOf(store, 'invoices', ''),
  });

  it.each(cases)(
    'fails clearly on $mode, commits nothing of the page, keeps the watermark, then converges',
    async ({ mode, error, count, refused }) => {
      await midCycle();
      const before = await snapshot();
      expect(before.state.cursor).not.toBeNull();
      await setup.admin.setHostile({ mode, path: listing, count: count ?? 2 });

      const failed = await setup.engine.runPartition('invoices', '');
      expect(failed?.result).toBe('failed');
      expect(failed?.error).toMatch(error);
      expect(failed?.durationMs).toBeLessThan(5_000);
      const after = await snapshot();
      if (refused) {
        expect(after.rows).toEqual(before.rows);
        expect(after.state).toMatchObject({ watermark: before.state.watermark, cursor: null });
      } else {
        expect(after).toEqual(before);
      }

      await setup.admin.clearHostile();
      const healed = await setup.engine.runPartition('invoices', '');
      expect(healed?.result).toBe('succeeded');
      expect(await differencesFromTruth(store, await setup.admin.truth('invoices'), ['invoices'])).toEqual(
        [],
      );
    },
  );

  it('never resumes from a cursor that led to a loop: the next run starts the cycle from the watermark', async () => {
    await midCycle();
    await setup.engine.runPartition('invoices', '');
    await setup.admin.applyChanges(150, 12, { streams: ['invoices'], kinds: ['update'] });
    const before = await stateOf(store, 'invoices', '');
    expect(before.cursor).toBeNull();
    // The listing loops from its third page on, in every pass, until the TMS is fixed.
    await setup.admin.setHostile({ mode: 'repeat-cursor', path: listing, count: 1_000_000, afterPages: 1 });
    for (let run = 1; run <= 2; run++) {
      const failed = await setup.engine.runPartition('invoices', '');
      expect(failed.error).toMatch(/cursor it had already returned/);
      // Each run reads the cycle again from the watermark (its first page at least), never at
      // once from the cursor that looped; none keeps that cursor as its checkpoint.
      expect(failed.pages).toBeGreaterThanOrEqual(1);
      expect(await stateOf(store, 'invoices', '')).toMatchObject({
        watermark: before.watermark,
        cursor: null,
      });
    }
    await setup.admin.clearHostile();
    expect((await setup.engine.runPartition('invoices', '')).result).toBe('succeeded');
    expect(await differencesFromTruth(store, await setup.admin.truth('invoices'), ['invoices'])).toEqual([]);
  });
});
