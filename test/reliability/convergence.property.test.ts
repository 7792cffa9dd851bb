import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { dialects, type StoreFixture } from '../store/store-fixture.js';
import { playScenario, scenarios, scenarioVariants } from './convergence/scenario.js';

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
    'makes the store equal the truth after random changes, faults, aborts and changes between pages, once a final run with reconcile ends',
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarios, async (steps) => {
          const store = await fixture.open();
          try {
            expect(await playScenario(store, steps, variant)).toEqual([]);
          } finally {
            await store.close();
          }
        }),
        { numRuns },
      );
    },
    numRuns * 60_000,
  );
});
