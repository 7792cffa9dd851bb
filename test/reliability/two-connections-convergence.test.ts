import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { dialects } from '../store/store-fixture.js';
import { playScenario, type Step, scenarios, scenarioVariants } from './convergence/scenario.js';

// Issue #35: two connections synced at the same time by one process, as a worker of every
// connection does: each its own TMS (tms-sim, and another TMS: the first variant of the
// convergence property), engine, client and store, with random changes between their runs,
// faults and aborts. Each store must equal its own TMS's truth. The variant renames the sequence
// field and adds fields to every record, so a record of one TMS in the other's store is a
// difference, never an equal row.

const numRuns = Number(process.env.CONVERGENCE_RUNS ?? 2);
const [variantName, variant] = scenarioVariants.find(([name]) => name !== 'default')!;
const fixture = dialects.find((dialect) => dialect.name === 'sqlite')!.fixture();
afterAll(() => fixture.cleanup());

/** A run, then later random changes: the connection's next run has changes to pick up. */
const changesBetweenRuns = (steps: readonly Step[]) => {
  const firstRun = steps.findIndex((step) => step.kind === 'sync');
  return firstRun >= 0 && steps.findLastIndex((step) => step.kind === 'changes') > firstRun;
};

it(`makes each of two connections synced at once, to tms-sim and to ${variantName}, equal its own TMS`, async () => {
  await fc.assert(
    fc.asyncProperty(
      scenarios.filter(changesBetweenRuns),
      scenarios.filter(changesBetweenRuns),
      async (first, second) => {
        const urls = await Promise.all([fixture.freshUrl(), fixture.freshUrl()]);
        const [mine, theirs] = await Promise.all(urls.map((url) => openStore(url)));
        try {
          const [simDifferences, variantDifferences] = await Promise.all([
            playScenario(mine!, first),
            playScenario(theirs!, second, variant),
          ]);
          expect({ simDifferences, variantDifferences }).toEqual({
            simDifferences: [],
            variantDifferences: [],
          });
        } finally {
          await Promise.all([mine!.close(), theirs!.close()]);
          await Promise.all(urls.map((url) => fixture.dropFresh(url)));
        }
      },
    ),
    { numRuns },
  );
}, 60_000);
