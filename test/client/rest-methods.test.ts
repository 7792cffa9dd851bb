import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmsClient, HttpStatusError, type TmsClient } from '../../src/client/index.js';
import type { Client, Invoice } from '../../src/sim/records/index.js';
import type { StreamTruth } from '../../src/sim/stream-truth.js';
import { allItems, fastRetry, type StartedSim, startTestSim, truth } from './support/sim.js';

let sim: StartedSim;
let client: TmsClient;
let state: StreamTruth;

const invoices = () => state.invoices!['']!.records as Invoice[];
const withStatus = (status: Invoice['status'], skip = 0) =>
  invoices().filter((invoice) => invoice.status === status)[skip]!;
const preliminary = (skip = 0) => withStatus('preliminary', skip);
const finalized = (skip = 0) => withStatus('finalized', skip);
const aClient = () => (state.clients!['']!.records as Client[])[0]!;

beforeAll(async () => {
  // Unsafe ids are covered by sim-variants.test.ts; here every method meets the default variant.
  sim = await startTestSim();
  client = createTmsClient({ baseUrl: sim.url, apiToken: 'dev-api-token', retry: fastRetry });
  state = await truth(sim.url);
});
afterAll(async () => {
  await client?.close();
  await sim?.close();
});

describe('invoice service', () => {
  it('getInvoice reads the detail with its lines', async () => {
    const detail = await client.getInvoice(invoices()[0]!.id);
    expect(detail).toMatchObject({ id: invoices()[0]!.id });
    expect((detail.lines as unknown[]).length).toBeGreaterThan(0);
  });

  it('patchInvoice merges the sent fields only', async () => {
    const invoice = preliminary(0);
    await client.patchInvoice(invoice.id, { reference: 'PO-77' });
    expect(await client.getInvoice(invoice.id)).toMatchObject({ reference: 'PO-77', notes: invoice.notes });
  });

  it('finalizeInvoice finalizes a preliminary invoice', async () => {
    const invoice = preliminary(1);
    await client.finalizeInvoice(invoice.id);
    expect((await client.getInvoice(invoice.id)).status).toBe('finalized');
  });

  it('cancelInvoice cancels a finalized invoice', async () => {
    const invoice = finalized(0);
    await client.cancelInvoice(invoice.id);
    expect((await client.getInvoice(invoice.id)).status).toBe('cancelled');
  });

  it('deleteInvoice soft-deletes: the invoice leaves the listing and appears under status=deleted', async () => {
    const invoice = preliminary(3);
    await client.deleteInvoice(invoice.id);
    const deleted = await allItems(client.listInvoices({ status: 'deleted' }));
    expect(deleted.map((item) => item.id)).toContain(invoice.id);
    expect((await allItems(client.listInvoices({ limit: 1000 }))).map((item) => item.id)).not.toContain(
      invoice.id,
    );
  });

  it('recordPayment, listPayments and removePayment keep the payments of a finalized invoice', async () => {
    const invoice = finalized(1);
    const created = await client.recordPayment(invoice.id, {
      amount: 12.5,
      date: '2024-05-01',
      reference: 'wire',
    });
    const listed = await allItems(client.listPayments({ invoiceId: invoice.id, limit: 2 }));
    const payment = listed.find((item) => item.reference === 'wire')!;
    expect(payment).toMatchObject({ amount: 12.5, invoiceId: invoice.id });
    if (created) expect(created.id).toBe(payment.id);
    await client.removePayment(invoice.id, String(payment.id));
    const after = await allItems(client.listPayments({ invoiceId: invoice.id }));
    expect(after.map((item) => item.id)).not.toContain(payment.id);
  });

  it('listInvoices with since returns only what changed after the watermark', async () => {
    let watermark = 0;
    for await (const page of client.listInvoices({ since: 1 })) watermark = page.maxSequence ?? watermark;
    const invoice = preliminary(5);
    await client.patchInvoice(invoice.id, { notes: 'changed after the watermark' });
    const changed = await allItems(client.listInvoices({ since: watermark }));
    expect(changed.map((item) => item.id)).toEqual([invoice.id]);
  });
});

describe('client service', () => {
  it('createClient creates a client that the listing then holds', async () => {
    const created = await client.createClient({ name: 'Newco B.V.', phone: '+31 30 000' });
    const listed = await allItems(client.listClients({ limit: 1000 }));
    const found = listed.find((item) => item.name === 'Newco B.V.');
    expect(found).toBeDefined();
    if (created) expect(created.id).toBe(found!.id);
  });

  it('patchClient merges the sent fields only', async () => {
    const target = aClient();
    await client.patchClient(target.id, { phone: '+31 6 1234' });
    const listed = (await allItems(client.listClients({ limit: 1000 }))).find(
      (item) => item.id === target.id,
    )!;
    expect(listed).toMatchObject({ phone: '+31 6 1234', name: target.name });
  });

  it('createClientContact adds a contact that listClientContacts pages', async () => {
    const target = aClient();
    await client.createClientContact(target.id, { name: 'Ann Example', role: 'finance' });
    const contacts = await allItems(client.listClientContacts({ clientId: target.id, limit: 2 }));
    expect(contacts.some((contact) => contact.name === 'Ann Example' && contact.clientId === target.id)).toBe(
      true,
    );
  });

  it("clientAddressBook pages one client's entries as the truth has them", async () => {
    const [clientId, scope] = Object.entries(state.client_addressbook!).find(
      ([, s]) => s.records.length > 0,
    )!;
    const entries = await allItems(client.clientAddressBook({ clientId, limit: 2 }));
    expect(entries).toEqual(expect.arrayContaining(scope.records));
    expect(entries).toHaveLength(scope.records.length);
  });

  it('globalAddressBook pages the global address book', async () => {
    const entries = await allItems(client.globalAddressBook({ since: 1, limit: 100 }));
    expect(entries).toHaveLength(state.addressbook!['']!.records.length);
  });

  it('a create that the server refuses is reported, not retried', async () => {
    const error = await client.createClient({ name: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ attempts: 1, retryable: false });
  });
});
