import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BreakerOpenError,
  createTmsClient,
  HttpStatusError,
  type TmsClient,
  type TmsClientOptions,
} from '../../src/client/index.js';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type StartedSim, setFaults, startTestSim } from './support/sim.js';

let sim: StartedSim;
const clients: TmsClient[] = [];
const admin = () => createSimAdminClient({ url: sim.url });

function newClient(options: Partial<TmsClientOptions> = {}): TmsClient {
  const client = createTmsClient({
    baseUrl: sim.url,
    apiToken: 'dev-api-token',
    retry: { minDelayMs: 5, maxDelayMs: 40 },
    ...options,
  });
  clients.push(client);
  return client;
}

const firstPage = (client: TmsClient, path: string) => client.pages({ path }, { limit: 5 }).next();

beforeAll(async () => {
  sim = await startTestSim();
});
afterEach(async () => {
  await setFaults(sim.url, 'none');
  await admin().clearHostile();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(async () => {
  await sim?.close();
});

describe("the origin's circuit breaker", () => {
  it('keeps retrying a failing request far beyond a handful of sends while the TMS answers', async () => {
    const client = newClient({ patienceMs: 5_000 });
    await client.getVersion();
    await admin().setHostile({ mode: 'html-502', path: '/invoice/invoices/', count: 12 });
    const page = await firstPage(client, '/invoice/invoices/');
    expect(page.value?.items.length).toBe(5);
    expect((await admin().clearHostile())?.served).toBe(12);
    expect(client.health().state).toBe('closed');
  });

  it('gives one request up at its ceiling while other requests to the origin succeed', async () => {
    const client = newClient({
      patienceMs: 500,
      retry: { minDelayMs: 5, maxDelayMs: 40, maxTotalMs: 2_000 },
    });
    await client.getVersion();
    await admin().setHostile({ mode: 'html-502', path: '/invoice/invoices/', count: 100_000 });
    let polling = true;
    const poll = (async () => {
      while (polling) {
        await firstPage(client, '/client/clients/');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const started = performance.now();
    const error = await firstPage(client, '/invoice/invoices/').catch((e: unknown) => e);
    polling = false;
    await poll;
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(502);
    expect((error as HttpStatusError).attempts).toBeGreaterThan(10);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(client.health().state).toBe('closed');
  });

  it('opens once nothing has succeeded for the patience time: one clear error, then every request fails at once', async () => {
    const client = newClient({
      patienceMs: 800,
      probeEveryMs: 600,
      patienceSetting: 'TMS_PATIENCE_SECONDS',
    });
    await client.getVersion();
    await setFaults(sim.url, { serverError: 1 });
    const started = performance.now();
    const error = await firstPage(client, '/invoice/invoices/').catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(800 + 1_000);
    expect(error).toBeInstanceOf(BreakerOpenError);
    const message = String(error);
    expect(message).toContain(sim.url);
    expect(message).toContain('TMS_PATIENCE_SECONDS');
    expect(message).toMatch(/GET \/invoice\/invoices\/ -> 50\d/);
    expect(client.health().state).toBe('open');

    const fast = performance.now();
    await expect(firstPage(client, '/client/clients/')).rejects.toBeInstanceOf(BreakerOpenError);
    expect(performance.now() - fast).toBeLessThan(100);

    // The TMS recovers: the next probe closes the breaker.
    await setFaults(sim.url, 'none');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await firstPage(client, '/client/clients/')).value?.items.length).toBe(5);
    expect(client.health().state).toBe('closed');
  });
});
