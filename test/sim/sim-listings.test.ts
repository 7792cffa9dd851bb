import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { call, login, pageThrough } from './sim-test-client.js';

describe('tms-sim listings (docs/api.md, Listings)', () => {
  let sim: SimHandle;
  let token: string;
  beforeAll(async () => {
    sim = await startSim({ invoices: 2500, clients: 300, seed: 7 });
    token = await login(sim);
  });
  afterAll(() => sim.close());
  const admin = () => createSimAdminClient({ url: sim.url });
  const get = (path: string) => call(sim, path, { token });

  it('pages 100 records by default and clamps a limit above 1000 to 1000', async () => {
    expect((await get('/invoice/invoices/')).json.data.items).toHaveLength(100);
    const big = await get('/invoice/invoices/?limit=5000');
    expect(big.status).toBe(200);
    expect(big.json.data.items).toHaveLength(1000);
  });

  it('caps the payments listing lower: 10 by default, at most 100', async () => {
    const invoice = await finalizedInvoiceId();
    for (let i = 0; i < 105; i++) {
      await call(sim, `/invoice/invoices/${invoice}/payments`, {
        method: 'POST',
        token,
        body: { amount: 1, date: '2025-01-01', reference: `R${i}` },
      });
    }
    expect((await get(`/invoice/invoices/${invoice}/payments`)).json.data.items).toHaveLength(10);
    expect((await get(`/invoice/invoices/${invoice}/payments?limit=1000`)).json.data.items).toHaveLength(100);
    const pages = await pageThrough(sim, `/invoice/invoices/${invoice}/payments`, token, 'limit=50');
    expect(pages.flatMap((page) => page.items ?? []).length).toBeGreaterThanOrEqual(105);
  });

  it('follows the cursors through every record once, in id order, not sequence order', async () => {
    const pages = await pageThrough(sim, '/invoice/invoices/', token, 'limit=700');
    const ids = pages.flatMap((page) => page.items.map((item: { id: string }) => item.id));
    const sequences = pages.flatMap((page) => page.items.map((item: { sequence: number }) => item.sequence));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort());
    expect(sequences).not.toEqual([...sequences].sort((a, b) => a - b));
    const truth = await admin().truth('invoices');
    expect(ids).toHaveLength(truth.invoices!['']!.records.length);
    expect(pages.at(-1).hasMore).toBe(false);
    expect(pages.at(-1).nextCursor).toBeUndefined();
  });

  it('rejects a forged or tampered cursor with 400', async () => {
    const first = await get('/invoice/invoices/?limit=2');
    const cursor: string = first.json.data.nextCursor;
    const [payload, tag] = cursor.split('.');
    const forged = `${Buffer.from('["invoices",{},5,0,null]').toString('base64url')}.${tag}`;
    for (const bad of [forged, `${payload}.AAAA${tag!.slice(4)}`, 'garbage']) {
      const answer = await get(`/invoice/invoices/?cursor=${encodeURIComponent(bad)}`);
      expect(answer.status).toBe(400);
      expect(answer.json.error.code).toBe('invalid_cursor');
    }
  });

  it('rejects a cursor of another listing with 400', async () => {
    const clients = await get('/client/clients/?limit=2');
    const answer = await get(`/invoice/invoices/?cursor=${encodeURIComponent(clients.json.data.nextCursor)}`);
    expect(answer.status).toBe(400);
  });

  it('treats since as exclusive and rejects a since that is not a number', async () => {
    const { items } = (await get('/invoice/invoices/?limit=1000')).json.data;
    const pivot = items[10].sequence;
    const after = await pageThrough(sim, '/invoice/invoices/', token, `since=${pivot}&limit=1000`);
    const sequences = after.flatMap((page) =>
      (page.items ?? []).map((item: { sequence: number }) => item.sequence),
    );
    expect(sequences.length).toBeGreaterThan(0);
    expect(Math.min(...sequences)).toBeGreaterThan(pivot);
    expect((await get('/invoice/invoices/?since=2024-01-01')).status).toBe(400);
  });

  it('keeps maxSequence fixed across the pages of a since cycle while records change, and the next cycle picks the changes up', async () => {
    const first = await get('/invoice/invoices/?since=1&limit=500');
    const snapshot = first.json.data.maxSequence;
    const watermarks = [snapshot];
    let cursor = first.json.data.nextCursor;
    const changes = await admin().applyChanges(30, 11, {
      streams: ['invoices'],
      kinds: ['update', 'create'],
    });
    while (cursor) {
      const page = (await get(`/invoice/invoices/?cursor=${encodeURIComponent(cursor)}`)).json.data;
      watermarks.push(page.maxSequence);
      cursor = page.hasMore ? page.nextCursor : undefined;
    }
    expect(new Set(watermarks)).toEqual(new Set([snapshot]));
    const next = await pageThrough(sim, '/invoice/invoices/', token, `since=${snapshot}&limit=1000`);
    const seen = new Set(next.flatMap((page) => (page.items ?? []).map((item: { id: string }) => item.id)));
    for (const change of changes) expect(seen.has(change.id)).toBe(true);
    expect(next[0].maxSequence).toBeGreaterThan(snapshot);
  });

  it('gives maxSequence without since as the highest sequence of the page', async () => {
    const { data } = (await get('/invoice/invoices/?limit=50')).json;
    expect(data.maxSequence).toBe(Math.max(...data.items.map((item: { sequence: number }) => item.sequence)));
  });

  it('leaves items out of an empty page, and maxSequence too when there is no since', async () => {
    const created = await call(sim, '/client/clients/', {
      method: 'POST',
      token,
      body: { name: 'Empty BV' },
    });
    const id = encodeURIComponent(created.json.data.id);
    expect((await get(`/client/clients/${id}/contacts`)).json.data).toEqual({ hasMore: false });
    const withSince = await get(`/invoice/invoices/?since=${Number.MAX_SAFE_INTEGER - 1}`);
    expect(withSince.json.data).toEqual({ hasMore: false, maxSequence: expect.any(Number) });
  });

  it('answers 400 to since combined with a custom sort', async () => {
    const answer = await get('/invoice/invoices/?since=1&sort=-id');
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('since_with_sort');
  });

  it('sorts descending with a - prefix, by id or by sequence', async () => {
    const byId = (await get('/invoice/invoices/?sort=-id&limit=20')).json.data.items.map(
      (item: { id: string }) => item.id,
    );
    expect(byId).toEqual([...byId].sort().reverse());
    const pages = await pageThrough(sim, '/client/clients/', token, 'sort=-sequence&limit=40');
    const sequences = pages.flatMap((page) => page.items.map((item: { sequence: number }) => item.sequence));
    expect(sequences).toEqual([...sequences].sort((a, b) => b - a));
    expect((await get('/invoice/invoices/?sort=colour')).status).toBe(400);
  });

  it('lists soft-deleted records only under status=deleted, honouring since', async () => {
    const [change] = await admin().applyChanges(1, 5, { streams: ['invoices'], kinds: ['softDelete'] });
    const deleted = (
      await pageThrough(sim, '/invoice/invoices/', token, 'status=deleted&limit=1000')
    ).flatMap((page) => page.items ?? []);
    const live = (await pageThrough(sim, '/invoice/invoices/', token, 'limit=1000')).flatMap(
      (page) => page.items ?? [],
    );
    expect(deleted.map((item: { id: string }) => item.id)).toContain(change!.id);
    expect(live.map((item: { id: string }) => item.id)).not.toContain(change!.id);
    const sequence = deleted.find((item: { id: string }) => item.id === change!.id).sequence;
    const since = (await get(`/invoice/invoices/?status=deleted&since=${sequence - 1}`)).json.data.items;
    expect(since.map((item: { id: string }) => item.id)).toContain(change!.id);
  });

  it('makes a hard-deleted record vanish from every listing and its detail', async () => {
    const [change] = await admin().applyChanges(1, 9, { streams: ['clients'], kinds: ['hardDelete'] });
    const everywhere = [
      ...(await pageThrough(sim, '/client/clients/', token, 'since=1&limit=1000')),
      ...(await pageThrough(sim, '/client/clients/', token, 'status=deleted&limit=1000')),
    ].flatMap((page) => page.items ?? []);
    expect(everywhere.map((item: { id: string }) => item.id)).not.toContain(change!.id);
    expect((await get(`/client/clients/${change!.id}/contacts`)).status).toBe(404);
  });

  it('re-delivers the whole address-book group of a client when one entry changes', async () => {
    const before = (await get('/client/addressbook/?limit=1000')).json.data.maxSequence;
    const [change] = await admin().applyChanges(1, 3, { streams: ['addressbook'], kinds: ['update'] });
    const { items } = (await get(`/client/addressbook/?since=${before}`)).json.data;
    const group = (await pageThrough(sim, `/client/clients/${change!.scope}/addressbook`, token)).flatMap(
      (page) => page.items,
    );
    expect(items.map((item: { id: string }) => item.id).sort()).toEqual(
      group.map((item: { id: string }) => item.id).sort(),
    );
    expect(new Set(items.map((item: { sequence: number }) => item.sequence)).size).toBe(1);
  });

  async function finalizedInvoiceId(): Promise<string> {
    const { items } = (await get('/invoice/invoices/?status=finalized&limit=1')).json.data;
    return items[0].id;
  }
});
