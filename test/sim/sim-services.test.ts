import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { call, login, pageThrough } from './sim-test-client.js';

describe('tms-sim invoice and client services', () => {
  let sim: SimHandle;
  let token: string;
  beforeAll(async () => {
    sim = await startSim({ invoices: 300, clients: 50, seed: 3 });
    token = await login(sim);
  });
  afterAll(() => sim.close());
  const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
    call(sim, path, { method, token, body });
  const firstWithStatus = async (status: string) =>
    (await send('GET', `/invoice/invoices/?status=${status}&limit=1`)).json.data.items[0];

  it('answers an invoice detail with its lines in the single-resource envelope', async () => {
    const invoice = await firstWithStatus('finalized');
    const detail = await send('GET', `/invoice/invoices/${invoice.id}`);
    expect(detail.json.data).toMatchObject({ ...invoice });
    expect(detail.json.data.lines.length).toBeGreaterThan(0);
  });

  it('finalizes a preliminary invoice, cancels a finalized one, and answers 409 otherwise', async () => {
    const invoice = await firstWithStatus('preliminary');
    expect((await send('POST', `/invoice/invoices/${invoice.id}/cancel`)).status).toBe(409);
    const finalized = await send('POST', `/invoice/invoices/${invoice.id}/finalize`);
    expect(finalized.json.data.status).toBe('finalized');
    expect(finalized.json.data.sequence).toBeGreaterThan(invoice.sequence);
    expect((await send('POST', `/invoice/invoices/${invoice.id}/finalize`)).status).toBe(409);
    expect((await send('DELETE', `/invoice/invoices/${invoice.id}`)).status).toBe(409);
    expect((await send('POST', `/invoice/invoices/${invoice.id}/cancel`)).json.data.status).toBe('cancelled');
  });

  it('deletes only a preliminary invoice, softly: status deleted and a new sequence', async () => {
    const invoice = await firstWithStatus('preliminary');
    expect((await send('DELETE', `/invoice/invoices/${invoice.id}`)).status).toBe(204);
    const detail = (await send('GET', `/invoice/invoices/${invoice.id}`)).json.data;
    expect(detail.status).toBe('deleted');
    expect(detail.sequence).toBeGreaterThan(invoice.sequence);
  });

  it('merge-patches an invoice: omitted fields stay, preliminary-only fields answer 409 once finalized', async () => {
    const invoice = await firstWithStatus('preliminary');
    const patched = await send('PATCH', `/invoice/invoices/${invoice.id}`, { notes: 'patched' });
    expect(patched.json.data).toMatchObject({
      notes: 'patched',
      reference: invoice.reference,
      currency: invoice.currency,
    });
    const again = await send('PATCH', `/invoice/invoices/${invoice.id}`, { notes: 'patched' });
    expect(again.json.data.sequence).toBe(patched.json.data.sequence);
    const lines = await send('PATCH', `/invoice/invoices/${invoice.id}`, {
      lines: [{ description: 'Pallet', productCode: 'PAL', quantity: 2, unitPrice: 10, vatRate: 21 }],
    });
    expect(lines.json.data.totals).toEqual({ net: 20, vat: 4.2, gross: 24.2 });
    const finalized = await firstWithStatus('finalized');
    const conflict = await send('PATCH', `/invoice/invoices/${finalized.id}`, { currency: 'USD' });
    expect(conflict.status).toBe(409);
    expect((await send('PATCH', `/invoice/invoices/${finalized.id}`, { reference: 'R-1' })).status).toBe(200);
  });

  it('answers 422 naming the invalid fields, 400 to a body that is not JSON, 404 to an unknown id', async () => {
    const invoice = await firstWithStatus('preliminary');
    const invalid = await send('PATCH', `/invoice/invoices/${invoice.id}`, {
      dueDate: 'tomorrow',
      status: 'paid',
    });
    expect(invalid.status).toBe(422);
    expect(invalid.json.error.details.map((detail: { field: string }) => detail.field)).toContain('status');
    const wrongType = await send('PATCH', `/invoice/invoices/${invoice.id}`, { dueDate: 'tomorrow' });
    expect(wrongType.json.error.details).toEqual([{ field: 'dueDate', message: expect.any(String) }]);
    const badJson = await call(sim, `/invoice/invoices/${invoice.id}`, {
      method: 'PATCH',
      token,
      body: '{"notes":',
    });
    expect(badJson.status).toBe(400);
    expect((await send('GET', '/invoice/invoices/0009999999')).status).toBe(404);
    expect((await send('GET', '/invoice/invoices/0000000001/payments/x/y')).status).toBe(404);
  });

  it('records a payment with 201, lists it, removes it with 204, each time bumping the invoice', async () => {
    const invoice = await firstWithStatus('finalized');
    await send('GET', `/invoice/invoices/${invoice.id}/payments?sort=-id`);
    const created = await send('POST', `/invoice/invoices/${invoice.id}/payments`, {
      amount: 12.5,
      date: '2025-02-01',
      reference: 'BANK-1',
    });
    expect(created.status).toBe(201);
    const payment = created.json.data;
    expect(payment).toMatchObject({ amount: 12.5, invoiceId: invoice.id });
    const afterCreate = (await send('GET', `/invoice/invoices/${invoice.id}`)).json.data;
    expect(afterCreate.paidAmount).toBeCloseTo(invoice.paidAmount + 12.5);
    expect(afterCreate.sequence).toBeGreaterThan(invoice.sequence);
    const newest = await send('GET', `/invoice/invoices/${invoice.id}/payments?sort=-id&limit=1`);
    expect(newest.json.data.items[0].id).toBe(payment.id);
    const listed = await pageThrough(sim, `/invoice/invoices/${invoice.id}/payments`, token);
    expect(listed.flatMap((page) => page.items).map((item: { id: string }) => item.id)).toContain(payment.id);
    expect((await send('DELETE', `/invoice/invoices/${invoice.id}/payments/${payment.id}`)).status).toBe(204);
    const afterDelete = (await send('GET', `/invoice/invoices/${invoice.id}`)).json.data;
    expect(afterDelete.sequence).toBeGreaterThan(afterCreate.sequence);
    expect(afterDelete.paidAmount).toBeCloseTo(invoice.paidAmount);
    expect((await send('DELETE', `/invoice/invoices/${invoice.id}/payments/${payment.id}`)).status).toBe(404);
    const badPayment = await send('POST', `/invoice/invoices/${invoice.id}/payments`, {
      amount: -1,
      date: 'x',
    });
    expect(badPayment.status).toBe(422);
  });

  it('creates a client with 201, merge-patches it and keeps the fields left out', async () => {
    const created = await send('POST', '/client/clients/', { name: 'Nieuw BV', phone: '+31 1' });
    expect(created.status).toBe(201);
    const client = created.json.data;
    const patched = await send('PATCH', `/client/clients/${client.id}`, {
      phone: '+31 2',
      address: { city: 'Delft' },
    });
    expect(patched.json.data).toMatchObject({
      name: 'Nieuw BV',
      phone: '+31 2',
      address: { city: 'Delft', country: 'NL' },
    });
    expect(patched.json.data.sequence).toBeGreaterThan(client.sequence);
    const invalid = await send('PATCH', `/client/clients/${client.id}`, { name: null });
    expect(invalid.status).toBe(422);
    expect(invalid.json.error.details[0].field).toBe('name');
  });

  it('creates and lists the contacts of a client, bumping the client so its children are re-read', async () => {
    const client = (await send('GET', '/client/clients/?status=active&limit=1')).json.data.items[0];
    const contact = await send('POST', `/client/clients/${client.id}/contacts`, { name: 'Iris' });
    expect(contact.status).toBe(201);
    const contacts = (await pageThrough(sim, `/client/clients/${client.id}/contacts`, token)).flatMap(
      (page) => page.items,
    );
    expect(contacts.map((item: { id: string }) => item.id)).toContain(contact.json.data.id);
    const after = (await send('GET', `/client/clients/?since=${client.sequence}`)).json.data.items;
    expect(after.map((item: { id: string }) => item.id)).toContain(client.id);
    expect((await send('POST', `/client/clients/${client.id}/contacts`, {})).status).toBe(422);
  });

  it('lists a client address book and the global one with the same entries', async () => {
    const global = (await pageThrough(sim, '/client/addressbook/', token, 'limit=1000')).flatMap(
      (page) => page.items,
    );
    const clientId = global[0].clientId;
    const own = (await pageThrough(sim, `/client/clients/${clientId}/addressbook`, token)).flatMap(
      (page) => page.items,
    );
    expect(own).toEqual(global.filter((entry: { clientId: string }) => entry.clientId === clientId));
  });
});
