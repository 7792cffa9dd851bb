import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimAdminClient, type SimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { adminHeaders, call, login, pageThrough } from './sim-test-client.js';

interface Listed {
  id: string;
  sequence: number;
  [field: string]: unknown;
}

describe('tms-sim record overrides', () => {
  let sim: SimHandle;
  let admin: SimAdminClient;
  let token: string;
  beforeAll(async () => {
    sim = await startSim({ invoices: 120, clients: 30, seed: 11 });
    admin = createSimAdminClient({ url: sim.url });
    token = await login(sim);
  });
  afterAll(() => sim.close());

  const listing = async (path: string, query = 'limit=1000'): Promise<Listed[]> =>
    (await pageThrough(sim, path, token, query)).flatMap((page) => page.items ?? []);
  const maxSequence = async (path: string) =>
    (await call(sim, `${path}?since=0&limit=1`, { token })).json.data.maxSequence as number;
  const overrideRoute = (method: 'PUT' | 'DELETE', body?: unknown) =>
    call(sim, '/_sim/overrides', { method, body, headers: adminHeaders });

  it('serves an overridden invoice with the raw fields in the listing, the detail and the truth', async () => {
    const [invoice] = await listing('/invoice/invoices/', 'status=finalized&limit=1');
    const before = await maxSequence('/invoice/invoices/');
    const fields = { totals: 'not an object', paidAmount: '12', extra: [1, null] };
    const override = await admin.setOverride('invoices', invoice!.id, fields);
    expect(override.sequence).toBeGreaterThan(before);

    const changed = await listing('/invoice/invoices/', `since=${before}`);
    expect(changed).toEqual([
      { ...invoice, ...fields, sequence: override.sequence, modifiedAt: expect.any(String) },
    ]);
    const detail = (await call(sim, `/invoice/invoices/${invoice!.id}`, { token })).json.data;
    expect(detail).toMatchObject(fields);
    expect(detail.lines.length).toBeGreaterThan(0);
    expect((await admin.truth('invoices')).invoices!['']!.records).toEqual(
      await listing('/invoice/invoices/'),
    );
  });

  it('overrides clients too, even the sequence field, and keeps the raw fields through later changes', async () => {
    const [client] = await listing('/client/clients/', 'limit=1');
    const fields = { name: 42, address: null, sequence: 'seven' };
    await admin.setOverride('clients', client!.id, fields);
    await admin.setOverride('clients', client!.id, { email: ['a', 'b'] });
    const patched = await call(sim, `/client/clients/${client!.id}`, {
      method: 'PATCH',
      token,
      body: { phone: '+31 20 555 0100' },
    });
    expect(patched.status).toBe(200);
    const served = (await listing('/client/clients/')).find((record) => record.id === client!.id);
    expect(served).toMatchObject({ ...fields, email: ['a', 'b'], phone: '+31 20 555 0100' });
    expect((await admin.truth('clients')).clients!['']!.records).toContainEqual(served);
  });

  it('clears every override: the records are served as they are, under a new sequence', async () => {
    const [invoice] = await listing('/invoice/invoices/', 'limit=1');
    await admin.setOverride('invoices', invoice!.id, { currency: 7 });
    const before = await maxSequence('/invoice/invoices/');
    const cleared = await admin.clearOverrides();
    expect(cleared.map(({ stream, id }) => `${stream}:${id}`)).toContain(`invoices:${invoice!.id}`);
    expect(cleared.every((entry) => entry.sequence > before)).toBe(true);

    const changed = await listing('/invoice/invoices/', `since=${before}`);
    expect(changed.map((record) => record.id)).toContain(invoice!.id);
    expect(changed.find((record) => record.id === invoice!.id)!.currency).toBe(invoice!.currency);
    const truth = await admin.truth();
    expect(truth.invoices!['']!.records).toEqual(await listing('/invoice/invoices/'));
    expect(truth.clients!['']!.records).toEqual(await listing('/client/clients/'));
    expect(await admin.clearOverrides()).toEqual([]);
  });

  it('answers 404 for an unknown id, 400 for an unknown stream, 422 for invoice lines, 401 without admin', async () => {
    const fields = { name: 1 };
    expect((await overrideRoute('PUT', { stream: 'clients', id: '0000099999', fields })).status).toBe(404);
    expect((await overrideRoute('PUT', { stream: 'clients', id: 'nope', fields })).status).toBe(404);
    const unknown = await overrideRoute('PUT', { stream: 'drivers', id: '0000000001', fields });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.code).toBe('unknown_stream');
    const lines = await overrideRoute('PUT', { stream: 'invoices', id: '0000000001', fields: { lines: 1 } });
    expect(lines.status).toBe(422);
    expect((await overrideRoute('PUT', { stream: 'clients', id: '0000000001' })).status).toBe(422);
    const anonymous = await call(sim, '/_sim/overrides', { method: 'DELETE' });
    expect(anonymous.status).toBe(401);
  });
});
