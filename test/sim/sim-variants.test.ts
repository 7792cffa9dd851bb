import { describe, expect, it } from 'vitest';
import type { SimVariant } from '../../src/sim/sim-options.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { call, login, pageThrough } from './sim-test-client.js';

async function withSim(variant: Partial<SimVariant>, run: (sim: SimHandle, token: string) => Promise<void>) {
  const sim = await startSim({ invoices: 30, clients: 5, variant });
  try {
    await run(sim, await login(sim));
  } finally {
    await sim.close();
  }
}

describe('tms-sim variants', () => {
  it('answers errors as flat JSON or as text when asked', async () => {
    await withSim({ errorBody: 'flat' }, async (sim) => {
      expect((await call(sim, '/invoice/invoices/')).json).toEqual({
        status: 401,
        message: expect.any(String),
      });
    });
    await withSim({ errorBody: 'text' }, async (sim) => {
      const answer = await call(sim, '/invoice/invoices/');
      expect(answer.headers['content-type']).toMatch(/^text\/plain/);
      expect(answer.text).toMatch(/^401 /);
    });
  });

  it('wraps a single resource in data.items when asked', async () => {
    await withSim({ singleEnvelope: 'items' }, async (sim, token) => {
      const answer = await call(sim, '/invoice/invoices/0000000001', { token });
      expect(answer.json.data.items[0].id).toBe('0000000001');
    });
  });

  it('puts a cursor on the last page that leads to an empty page', async () => {
    await withSim({ cursorOnLastPage: true }, async (sim, token) => {
      const last = (await call(sim, '/invoice/invoices/?limit=1000', { token })).json.data;
      expect(last.hasMore).toBe(false);
      const empty = await call(sim, `/invoice/invoices/?cursor=${encodeURIComponent(last.nextCursor)}`, {
        token,
      });
      expect(empty.json.data).toEqual({ hasMore: false });
    });
  });

  it('issues opaque access tokens when asked', async () => {
    await withSim({ tokenFormat: 'opaque' }, async (sim, token) => {
      expect(token).not.toContain('.');
      expect((await call(sim, '/invoice/invoices/', { token })).status).toBe(200);
    });
  });

  it('names the sequence field as asked and accepts it as a sort field', async () => {
    await withSim({ sequenceField: 'rowVersion' }, async (sim, token) => {
      const { items } = (await call(sim, '/invoice/invoices/?sort=-rowVersion', { token })).json.data;
      expect(items[0].rowVersion).toBeGreaterThan(items[1].rowVersion);
      expect(items[0].sequence).toBeUndefined();
    });
  });

  it('hands out ids that need percent-encoding, still in id order, and finds them when encoded', async () => {
    await withSim({ idStyle: 'unsafe' }, async (sim, token) => {
      const items = (await pageThrough(sim, '/invoice/invoices/', token, 'limit=7')).flatMap(
        (page) => page.items,
      );
      const ids = items.map((item: { id: string }) => item.id);
      expect(ids[0]).toMatch(/[/ #?%]/);
      expect(ids).toEqual([...ids].sort());
      const detail = await call(sim, `/invoice/invoices/${encodeURIComponent(ids[3]!)}`, { token });
      expect(detail.json.data.id).toBe(ids[3]);
      const payments = await call(sim, `/invoice/invoices/${encodeURIComponent(ids[3]!)}/payments`, {
        token,
      });
      expect(payments.status).toBe(200);
    });
  });

  it('starts sequences just below 2^53 and keeps them safe integers', async () => {
    await withSim({ largeSequences: true }, async (sim, token) => {
      const { data } = (await call(sim, '/invoice/invoices/?since=1', { token })).json;
      expect(data.maxSequence).toBeGreaterThan(2 ** 52);
      expect(Number.isSafeInteger(data.maxSequence)).toBe(true);
      expect(data.items.every((item: { sequence: number }) => Number.isSafeInteger(item.sequence))).toBe(
        true,
      );
    });
  });
});
