import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTmsClient } from '../../src/client/index.js';
import { requestsLeft } from '../../src/client/requests-left.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';

let sim: SimHandle;
beforeAll(async () => {
  sim = await startSim({ invoices: 1, clients: 1, operators: 1 });
});
afterAll(() => sim.close());

/** The paths undici writes while `run` runs, in order. */
async function writtenDuring<T>(run: (written: readonly string[]) => Promise<T>): Promise<T> {
  const written: string[] = [];
  const onWrite = (message: unknown) => written.push((message as { request: { path: string } }).request.path);
  subscribe('undici:client:sendHeaders', onWrite);
  try {
    return await run(written);
  } finally {
    unsubscribe('undici:client:sendHeaders', onWrite);
  }
}

describe('requestsLeft', () => {
  it('resolves once a request made just after an answer, on the same keep-alive socket, has been written', async () => {
    // One connection: the second request waits for the socket the first answer just freed, which
    // undici hands on from an immediate and writes on from another (request-core.ts, paginate).
    const pool = new Pool(sim.url, { connections: 1 });
    try {
      await writtenDuring(async (written) => {
        await (await pool.request({ method: 'GET', path: '/_sim/faults' })).body.text();
        const second = pool.request({ method: 'GET', path: '/_sim/faults?again' });
        await requestsLeft();
        expect(written).toEqual(['/_sim/faults', '/_sim/faults?again']);
        await (await second).body.text();
      });
    } finally {
      await pool.close();
    }
  });
});

describe('the client, with more requests than slots', () => {
  it('hands over an answer only once the waiting request that took its slot has been written', async () => {
    const client = createTmsClient({
      baseUrl: sim.url,
      apiToken: 'dev-api-token',
      connections: 1,
      initialConcurrency: 1,
    });
    try {
      await client.getVersion();
      await writtenDuring(async (written) => {
        const first = client.getVersion();
        const second = client.getVersion();
        await first;
        // The second call waited for the first one's slot; it is on the wire before the first
        // answer reaches its caller, whatever the caller then does with it.
        expect(written.filter((path) => path.includes('version'))).toHaveLength(2);
        await second;
      });
    } finally {
      await client.close();
    }
  });
});
