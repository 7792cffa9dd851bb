import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { playScenario, scenarios, scenarioVariants, syncedStreams } from './convergence/scenario.js';

// CI's quick profile, per simulator variant; `npm run soak` runs thousands (test/reliability/soak.ts).
// A case takes about 1 s on SQLite and 5 s on PostgreSQL alone, several times that beside the rest.
const numRuns = Number(process.env.CONVERGENCE_RUNS ?? 2);
const cases = dialects.flatMap((dialect) =>
  scenarioVariants.map(([label, variant]) => ({ ...dialect, label, variant })),
);

describe.each(cases)('convergence on $name against $label', ({ fixture: makeFixture, variant }) => {
  const fixture: StoreFixture = makeFixture();
  afterAll(() => fixture.cleanup());

  it(
    'makes the store equal the truth after random changes, faults, aborts and changes between pages, once a final run with reconcile ends, and keeps a history whose versions are contiguous, end in the current row and never repeat',
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarios, async (steps) => {
          // A store of its own: history's views and triggers name the columns the shared one drops between tests.
          const url = await fixture.freshUrl();
          const store = await openStore(url, { history: syncedStreams });
          try {
            expect(await playScenario(store, steps, variant, { history: true })).toEqual([]);
          } finally {
            await store.close();
            await fixture.dropFresh(url);
          }
        }),
        { numRuns },
      );
    },
    numRuns * 60_000,
  );
});
