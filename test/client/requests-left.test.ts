import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestsLeft } from '../../src/client/requests-left.js';
import { Pool } from '../../src/client/undici-pool.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';

let sim: SimHandle;
beforeAll(async () => {
  sim = await startSim({ invoices: 1, clients: 1, operators: 1 });
});
afterAll(() => sim.close());

describe('requestsLeft', () => {
  it('resolves once a request made just after an answer, on the same keep-alive socket, has been written', async () => {
    // One connection: the second request waits for the socket the first answer just freed, which
    // undici hands on from an immediate and writes on from another (child strategies, paginate).
    const pool = new Pool(sim.url, { connections: 1 });
    const written: string[] = [];
    const onWrite = (message: unknown) =>
      written.push((message as { request: { path: string } }).request.path);
    subscribe('undici:client:sendHeaders', onWrite);
    try {
      await (await pool.request({ method: 'GET', path: '/_sim/faults' })).body.text();
      const second = pool.request({ method: 'GET', path: '/_sim/faults?again' });
      await requestsLeft();
      expect(written).toEqual(['/_sim/faults', '/_sim/faults?again']);
      await (await second).body.text();
    } finally {
      unsubscribe('undici:client:sendHeaders', onWrite);
      await pool.close();
    }
  });
});
