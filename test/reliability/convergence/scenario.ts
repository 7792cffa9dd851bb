import fc from 'fast-check';
import { defaultSettings } from '../../../config/settings.js';
import { differencesFromTruth } from '../../../src/cli/store-vs-truth.js';
import { restStreams } from '../../../src/sim/admin/sim-truth.js';
import type { FaultRates, SimVariant } from '../../../src/sim/sim-options.js';
import type { Store } from '../../../src/store/store.js';
import { type SyncSetup, startSyncSetup } from '../../support/sync-setup.js';
import { historyDifferences } from './history-checks.js';

/** The REST streams the scenarios sync and compare (the Driver API has streams without a change feed). */
export const syncedStreams = restStreams;

/** Random changes on these: creates, updates, soft and hard deletes, payments, group changes. */
const changedStreams = [
  'invoices',
  'invoice_lines',
  'invoice_payments',
  'clients',
  'client_contacts',
  'addressbook',
];

// Faults without the long waits of the named profiles (Retry-After 1 s, 30 s stalls): many cases a minute.
const faultProfiles = {
  none: {},
  flaky: { rateLimited: 0.03, serverError: 0.05, retryAfterSeconds: 0 },
  rough: { serverError: 0.03, reset: 0.03, truncate: 0.03, retryAfterSeconds: 0 },
} as const satisfies Record<string, Partial<FaultRates>>;
type FaultName = keyof typeof faultProfiles;

export interface ChangeStep {
  readonly kind: 'changes';
  readonly count: number;
  readonly seed: number;
}

export interface SyncStep {
  readonly kind: 'sync';
  readonly streams: readonly string[];
  readonly faults: FaultName;
  readonly reconcile: boolean;
  /** Changes made once the run has committed this many pages: records change under a running cycle. */
  readonly between:
    | { readonly afterPages: number; readonly count: number; readonly seed: number }
    | undefined;
  /** Stops the run once it has committed this many pages. */
  readonly abortAfterPages: number | undefined;
}

export type Step = ChangeStep | SyncStep;

const changeStep: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('changes' as const),
  count: fc.integer({ min: 1, max: 30 }),
  seed: fc.nat(),
});

const syncStep: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('sync' as const),
  streams: fc.subarray([...syncedStreams], { minLength: 1 }),
  faults: fc.constantFrom(...(Object.keys(faultProfiles) as FaultName[])),
  reconcile: fc.boolean(),
  between: fc.option(
    fc.record({
      afterPages: fc.integer({ min: 1, max: 8 }),
      count: fc.integer({ min: 1, max: 15 }),
      seed: fc.nat(),
    }),
    { nil: undefined },
  ),
  abortAfterPages: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
});

/** A random interleaving of simulator changes and sync runs. */
export const scenarios: fc.Arbitrary<Step[]> = fc.array(fc.oneof(changeStep, syncStep), {
  minLength: 1,
  maxLength: 6,
});

const clientOptions = {
  retry: { attempts: 8, minDelayMs: 1, maxDelayMs: 5 },
  timeouts: { headersMs: 2_000, bodyMs: 2_000 },
};

/**
 * The simulators the property runs against: tms-sim's default, and other TMSs (record shapes
 * combined with the other variants of docs/records.md).
 */
export const scenarioVariants: ReadonlyArray<readonly [string, Partial<SimVariant>]> = [
  ['default', {}],
  [
    'random shapes + renamed sequence field',
    { recordShapes: 'random', recordShapesSeed: 11, sequenceField: 'rev' },
  ],
  [
    'alt shapes + unsafe ids + data.items singles + opaque tokens',
    { recordShapes: 'alt', idStyle: 'unsafe', singleEnvelope: 'items', tokenFormat: 'opaque' },
  ],
  ['random shapes + large sequences', { recordShapes: 'random', recordShapesSeed: 12, largeSequences: true }],
];

/**
 * Plays the steps against a fresh simulator of the variant syncing into `store`, then stops the
 * faults and runs every stream once with reconcile: answers the differences between the store and
 * the truth, any deletes the guard held back (none are implausible here), and, with `history`
 * (the store opened with history mode on the synced streams), what breaks history's invariants.
 */
export async function playScenario(
  store: Store,
  steps: readonly Step[],
  variant: Partial<SimVariant> = {},
  { history = false }: { history?: boolean } = {},
): Promise<string[]> {
  const setup = await startSyncSetup(
    store,
    { invoices: 120, clients: 30, operators: 1, variant },
    { sync: { ...defaultSettings.sync, pageLimit: 20 } },
    { clientOptions },
  );
  try {
    for (const step of steps) {
      if (step.kind === 'changes')
        await setup.admin.applyChanges(step.count, step.seed, { streams: changedStreams });
      else await playSync(setup, step);
    }
    await setup.admin.setFaults('none');
    const final = await setup.engine.run(syncedStreams, { reconcile: true });
    const failed = final.filter((summary) => summary.result !== 'succeeded');
    if (failed.length > 0)
      return failed.map((summary) => `final run of ${summary.stream} failed: ${summary.error}`);
    const held = (await store.heldDeletes()).map((entry) => `held deletes: ${entry.stream}/${entry.scope}`);
    return [
      ...held,
      ...(await differencesFromTruth(store, await setup.admin.truth(), syncedStreams)),
      ...(history ? await historyDifferences(store, syncedStreams) : []),
    ];
  } finally {
    await setup.close();
  }
}

async function playSync(setup: SyncSetup, step: SyncStep): Promise<void> {
  await setup.admin.setFaults(faultProfiles[step.faults]);
  const controller = new AbortController();
  const pending: Promise<unknown>[] = [];
  let pages = 0;
  await setup.engine.run(step.streams, {
    reconcile: step.reconcile,
    signal: controller.signal,
    onProgress: () => {
      pages++;
      // onProgress cannot wait: the change races the next page, as a real concurrent edit would.
      if (step.between && pages === step.between.afterPages)
        pending.push(
          setup.admin.applyChanges(step.between.count, step.between.seed, { streams: changedStreams }),
        );
      if (pages === step.abortAfterPages) controller.abort();
    },
  });
  await Promise.all(pending);
  await setup.admin.setFaults('none');
}
