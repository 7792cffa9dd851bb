import { describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { startSim } from '../../src/sim/start-sim.js';
import { login, pageThrough } from './sim-test-client.js';

const fixedClock = () => Date.UTC(2025, 5, 1);

describe('tms-sim truth', () => {
  it('builds the same data and applies the same changes for the same seed', async () => {
    const truths = [];
    for (let run = 0; run < 2; run++) {
      const sim = await startSim({ invoices: 200, clients: 40, seed: 42, now: fixedClock });
      const admin = createSimAdminClient({ url: sim.url });
      const changes = await admin.applyChanges(40, 5);
      truths.push({ changes, truth: await admin.truth() });
      await sim.close();
    }
    expect(truths[0]!.changes.length).toBe(40);
    expect(truths[1]).toEqual(truths[0]);
    const other = await startSim({ invoices: 200, clients: 40, seed: 43, now: fixedClock });
    const otherTruth = await createSimAdminClient({ url: other.url }).truth('invoices');
    await other.close();
    expect(otherTruth).not.toEqual({ invoices: truths[0]!.truth.invoices });
  });

  it('answers as truth exactly what paging every listing returns, after changes', async () => {
    const sim = await startSim({ invoices: 150, clients: 30, seed: 9 });
    try {
      const admin = createSimAdminClient({ url: sim.url });
      await admin.applyChanges(60, 1);
      const token = await login(sim);
      const truth = await admin.truth();
      const records = async (path: string, query = 'limit=1000') =>
        (await pageThrough(sim, path, token, query)).flatMap((page) => page.items ?? []);
      expect(await records('/invoice/invoices/')).toEqual(truth.invoices!['']!.records);
      expect(
        (await records('/invoice/invoices/', 'status=deleted&limit=1000')).map((r: { id: string }) => r.id),
      ).toEqual(truth.invoices!['']!.deletedIds);
      expect(await records('/client/clients/')).toEqual(truth.clients!['']!.records);
      expect(await records('/client/addressbook/')).toEqual(truth.addressbook!['']!.records);
      for (const [invoiceId, scope] of Object.entries(truth.invoice_payments!).slice(0, 20)) {
        expect(
          await records(`/invoice/invoices/${encodeURIComponent(invoiceId)}/payments`, 'limit=100'),
        ).toEqual(scope.records);
      }
      for (const [clientId, scope] of Object.entries(truth.client_contacts!)) {
        expect(await records(`/client/clients/${encodeURIComponent(clientId)}/contacts`)).toEqual(
          scope.records,
        );
      }
      expect(Object.keys(truth.client_addressbook!)).toEqual(
        truth.clients!['']!.records.map((r) => (r as { id: string }).id),
      );
    } finally {
      await sim.close();
    }
  });
});
