import { describe, expect, it } from 'vitest';
import { startSim } from '../../src/sim/start-sim.js';
import { call, login } from './sim-test-client.js';

describe('tms-sim at scale', () => {
  it('starts with 1,000,000 invoices and 1,000,000 clients and serves full pages of each listing', async () => {
    const sim = await startSim({ invoices: 1_000_000, clients: 1_000_000 });
    try {
      const token = await login(sim);
      for (const path of [
        '/invoice/invoices/?since=1&limit=1000',
        '/client/clients/?limit=1000',
        '/client/addressbook/?since=1&limit=1000',
      ]) {
        const answer = await call(sim, path, { token });
        expect(answer.status).toBe(200);
        expect(answer.json.data.items).toHaveLength(1000);
        expect(answer.json.data.hasMore).toBe(true);
      }
      const last = await call(sim, '/invoice/invoices/1000000', { token });
      expect(last.status).toBe(404);
      const lastId = (await call(sim, '/invoice/invoices/0001000000', { token })).json.data.id;
      expect(lastId).toBe('0001000000');
    } finally {
      await sim.close();
    }
  });
});
