import { afterAll, describe, expect, it } from 'vitest';
import { defaultSettings, type Settings } from '../../config/settings.js';
import { differencesFromTruth } from '../../src/cli/store-vs-truth.js';
import { createTmsClient, type TmsClientOptions } from '../../src/client/index.js';
import type { StartSimOptions } from '../../src/sim/start-sim.js';
import type { PartitionSummary } from '../../src/sync/run-options.js';
import { dialects } from '../store/store-fixture.js';
import { startSyncSetup } from '../support/sync-setup.js';

// docs/records.md: what the worker must not assume. Each item syncs every stream against a
// simulator that makes another choice than its default, then again after random changes (with
// reconcile), and the store must equal the truth with every run succeeded.

const small = { invoices: 80, clients: 20, operators: 1 } as const;
const quickRetry = { retry: { attempts: 8, minDelayMs: 1, maxDelayMs: 5 } };

const failures = (summaries: readonly PartitionSummary[]) =>
  summaries.filter((s) => s.result !== 'succeeded').map((s) => `${s.stream}/${s.partition}: ${s.error}`);

describe('the worker assumes nothing docs/records.md leaves open', () => {
  const fixture = dialects[0].fixture();
  afterAll(() => fixture.cleanup());

  async function convergesAgainst(
    sim: StartSimOptions,
    settings: Partial<Settings> = {},
    between?: (url: string) => Promise<void>,
    clientOptions: Partial<TmsClientOptions> = quickRetry,
  ): Promise<void> {
    const store = await fixture.open();
    const setup = await startSyncSetup(store, { ...small, ...sim }, settings, { clientOptions });
    try {
      expect(failures(await setup.engine.run([]))).toEqual([]);
      expect(await differencesFromTruth(store, await setup.admin.truth())).toEqual([]);
      await setup.admin.applyChanges(40, 11);
      if (between) await between(setup.sim.url);
      expect(failures(await setup.engine.run([], { reconcile: true }))).toEqual([]);
      expect(await differencesFromTruth(store, await setup.admin.truth())).toEqual([]);
      expect(await store.heldDeletes()).toEqual([]);
    } finally {
      await setup.close();
      await store.close();
    }
  }

  it('the shape of error bodies: flat JSON and plain text, met through injected faults', async () => {
    const faults = { serverError: 0.05, rateLimited: 0.05, retryAfterSeconds: 0 };
    await convergesAgainst({ faults, variant: { errorBody: 'flat' } });
    await convergesAgainst({ faults, variant: { errorBody: 'text' } });
  }, 60_000);

  it('the token format: opaque tokens that expire during the run', async () => {
    await convergesAgainst({
      tokenTtlSeconds: 1,
      faults: { latencyMs: 5 },
      variant: { tokenFormat: 'opaque' },
    });
  }, 60_000);

  it('the envelope of a single-resource answer: {"data": {"items": [record]}}', async () => {
    await convergesAgainst({ variant: { singleEnvelope: 'items' } });
  }, 60_000);

  it('that the last page carries no nextCursor', async () => {
    await convergesAgainst({ variant: { cursorOnLastPage: true } });
  }, 60_000);

  it('that a page holds limit items, or that child listings fit one page', async () => {
    // Pages of 7 and the payments' own cap: every listing, children included, takes several pages.
    await convergesAgainst({}, { sync: { ...defaultSettings.sync, pageLimit: 7 } });
    await convergesAgainst({}, { sync: { ...defaultSettings.sync, pageLimit: 1000 } });
  }, 90_000);

  it('that records arrive in sequence order, that sequences are small or dense', async () => {
    await convergesAgainst({ variant: { largeSequences: true } });
  }, 60_000);

  it('that ids are numeric or URL-safe', async () => {
    await convergesAgainst({ variant: { idStyle: 'unsafe' } });
  }, 60_000);

  it('the name of the sequence field, even when the setting does not name it', async () => {
    await convergesAgainst({ variant: { sequenceField: 'rev' } });
    await convergesAgainst({ variant: { sequenceField: 'rev' } }, { sequenceField: 'sequence' });
  }, 90_000);

  it('any field of a record beyond its key, or that a soft-deleted record says so in its own fields', async () => {
    await convergesAgainst({ variant: { recordShapes: 'alt' } });
    for (const seed of [1, 2, 3])
      await convergesAgainst({ variant: { recordShapes: 'random', recordShapesSeed: seed } });
  }, 180_000);

  it("that a resource's child list changes by small steps: every line of 50 invoices replaced at once", async () => {
    const replaceLines = async (url: string) => {
      const client = createTmsClient({ baseUrl: url, apiToken: 'dev-api-token', ...quickRetry });
      try {
        let replaced = 0;
        for await (const page of client.listInvoices({ limit: 100 })) {
          for (const invoice of page.items) {
            if (invoice.status !== 'preliminary' || replaced >= 50) continue;
            const lines = Array.from({ length: 1 + (replaced % 3) }, (_, i) => ({
              description: `replaced ${i}`,
              productCode: `R${i}`,
              quantity: 2,
              unitPrice: 10,
              vatRate: 21,
            }));
            await client.patchInvoice(String(invoice.id), { lines });
            replaced += 1;
          }
        }
        expect(replaced).toBeGreaterThanOrEqual(10);
      } finally {
        await client.close();
      }
    };
    await convergesAgainst({ invoices: 200 }, {}, replaceLines);
  }, 60_000);

  it('that faults come one at a time: a third of all requests fail (429 with Retry-After 2 s, HTML 5xx, resets, the login too), tokens last 5 s', async () => {
    // The product's own retry defaults: how long to go on is decided by whether the TMS answers.
    // A smaller account than the others: each 429 holds every request 2 s, so the time grows with
    // the requests while what is exercised (every kind of fault, on every stream) does not.
    // Against the variant's error bodies (text) and tokens (opaque): the default's are met by the
    // tests above and by the fault drills.
    const harsh = { faults: 'harsh', tokenTtlSeconds: 5, invoices: 30, clients: 8 } as const;
    await convergesAgainst(
      { ...harsh, variant: { errorBody: 'text', tokenFormat: 'opaque' } },
      {},
      undefined,
      {},
    );
  }, 240_000);
});
