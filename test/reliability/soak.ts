/**
 * `npm run soak`: the convergence property of convergence.property.test.ts with thousands of cases,
 * each against a simulator variant drawn from `scenarioVariants` (tms-sim's default and other TMSs),
 * each in a store of its own with history mode on (its invariants checked too).
 * SOAK_RUNS (default 2000) cases per dialect, SOAK_DIALECTS (default sqlite,postgres), SOAK_SEED to
 * replay a run. Prints the cases run, the divergences and any shrunk counterexample; exit code 1 on one.
 */
import fc from 'fast-check';
import { openStore } from '../../src/store/open-store.js';
import { dialects } from '../store/store-fixture.js';
import { playScenario, scenarios, scenarioVariants, syncedStreams } from './convergence/scenario.js';

const runs = Number(process.env.SOAK_RUNS ?? 2000);
const wanted = (process.env.SOAK_DIALECTS ?? 'sqlite,postgres').split(',');
const seed = process.env.SOAK_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.SOAK_SEED);

let failed = false;
for (const { name, fixture: makeFixture } of dialects.filter((dialect) => wanted.includes(dialect.name))) {
  const fixture = makeFixture();
  const started = Date.now();
  let cases = 0;
  const property = fc.asyncProperty(
    scenarios,
    fc.constantFrom(...scenarioVariants),
    async (steps, [, variant]) => {
      cases++;
      // A store of its own, with history mode on, as in the property test (history-checks.ts).
      const url = await fixture.freshUrl();
      const store = await openStore(url, { history: syncedStreams });
      try {
        const differences = await playScenario(store, steps, variant, { history: true });
        if (differences.length > 0)
          throw new Error(`${differences.length} differences:\n${differences.slice(0, 10).join('\n')}`);
      } finally {
        await store.close();
        await fixture.dropFresh(url);
      }
    },
  );
  const details = await fc.check(property, { numRuns: runs, seed });
  await fixture.cleanup();
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(
    `${name}: ${details.numRuns} cases passed, ${details.failed ? 1 : 0} divergences (${cases} runs with shrinking, ${seconds} s, seed ${seed})`,
  );
  if (details.failed) {
    failed = true;
    console.log(fc.defaultReportMessage(details));
    console.log(String(details.errorInstance));
  }
}
process.exitCode = failed ? 1 : 0;
