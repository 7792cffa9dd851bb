import { afterAll, afterEach, beforeEach, describe } from 'vitest';
import type { StartSimOptions } from '../../src/sim/start-sim.js';
import type { OpenStoreOptions } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { type SyncSetup, startSyncSetup } from './sync-setup.js';

/**
 * Declares a suite once per dialect (SQLite, then PostgreSQL), titled `<title> on <dialect>`; the
 * dialect's test databases are dropped after the file. The same store tests run on both.
 */
export function describeOnEachDialect(title: string, suite: (fixture: StoreFixture) => void): void {
  describe.each(dialects)(`${title} on $name`, ({ fixture: makeFixture }) => {
    const fixture = makeFixture();
    afterAll(() => fixture.cleanup());
    suite(fixture);
  });
}

/** The store of the running test: opened emptied before each test, closed after it. */
export function useStore(fixture: StoreFixture, options?: OpenStoreOptions): () => Store {
  let store: Store | undefined;
  beforeEach(async () => {
    store = await fixture.open(options);
    return () => store!.close();
  });
  return () => store!;
}

/** A simulator and an engine syncing it into the running test's store, started and closed per test. */
export function useSyncSetup(
  fixture: StoreFixture,
  simOptions: StartSimOptions = {},
): { store: () => Store; setup: () => SyncSetup } {
  let store: Store | undefined;
  let setup: SyncSetup | undefined;
  beforeEach(async () => {
    store = await fixture.open();
    setup = await startSyncSetup(store, simOptions);
  });
  afterEach(async () => {
    await setup?.close();
    await store?.close();
  });
  return { store: () => store!, setup: () => setup! };
}
