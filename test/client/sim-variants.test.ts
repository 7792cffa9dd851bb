import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmsClient, HttpStatusError, type TmsClient } from '../../src/client/index.js';
import type { SimVariant } from '../../src/sim/sim-options.js';
import { allItems, fastRetry, type StartedSim, startTestSim, truth } from './support/sim.js';

const variants: Array<[string, Partial<SimVariant>]> = [
  ['the default variant', {}],
  ['flat error bodies', { errorBody: 'flat' }],
  ['text error bodies', { errorBody: 'text' }],
  ['single resources as data.items', { singleEnvelope: 'items' }],
  ['a cursor on the last page', { cursorOnLastPage: true }],
  ['opaque tokens', { tokenFormat: 'opaque' }],
  ['a renamed sequence field', { sequenceField: 'seqNo' }],
  ['ids that need percent-encoding', { idStyle: 'unsafe' }],
  ['sequences near 2^53', { largeSequences: true }],
];

const byId = (records: readonly object[]) =>
  [...(records as Array<{ id: string }>)].sort((a, b) => (a.id < b.id ? -1 : 1));

describe.each(variants)('against a simulator with %s', (_, variant) => {
  let sim: StartedSim;
  let client: TmsClient;

  beforeAll(async () => {
    sim = await startTestSim({ variant });
    client = createTmsClient({ baseUrl: sim.url, apiToken: 'dev-api-token', retry: fastRetry });
  });
  afterAll(async () => {
    await client?.close();
    await sim?.close();
  });

  it('pages every invoice from since=1 exactly as the truth has them, with a stable watermark', async () => {
    const pages = [];
    for await (const page of client.listInvoices({ since: 1, limit: 25 })) pages.push(page);
    const expected = (await truth(sim.url)).invoices?.['']?.records as Array<{ id: string }>;
    expect(pages.length).toBeGreaterThan(1);
    expect(byId(pages.flatMap((page) => page.items))).toEqual(byId(expected));
    expect(new Set(pages.map((page) => page.maxSequence)).size).toBe(1);
    expect(Number.isSafeInteger(pages[0]!.maxSequence)).toBe(true);
  });

  it('pages clients and the global address book as the truth has them', async () => {
    const current = await truth(sim.url);
    expect(byId(await allItems(client.listClients({ since: 1, limit: 7 })))).toEqual(
      byId(current.clients!['']!.records as never),
    );
    expect(byId(await allItems(client.globalAddressBook({ limit: 50 })))).toEqual(
      byId(current.addressbook!['']!.records as never),
    );
  });

  it('reads an invoice detail and its payments by an id used in the path', async () => {
    const pages = client.listInvoices({ limit: 5 });
    const first = (await pages.next()).value?.items[0];
    await pages.return();
    const detail = await client.getInvoice(String(first!.id));
    expect(detail.id).toBe(first!.id);
    expect(Array.isArray(detail.lines)).toBe(true);
    const payments = await allItems(client.listPayments({ invoiceId: String(first!.id) }));
    expect(payments.every((payment) => payment.invoiceId === first!.id)).toBe(true);
  });

  it("reports a 404 with the variant's error body and does not retry it", async () => {
    const error = (await client.getInvoice('no such/invoice').catch((e: unknown) => e)) as HttpStatusError;
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 404, code: 'TMS_REQUEST_REJECTED', attempts: 1, retryable: false });
    expect(error.body).toBeDefined();
  });
});
