import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createTmsClient,
  ResponseTooLargeError,
  TimeoutError,
  type TmsClient,
  type TmsClientOptions,
} from '../../src/client/index.js';
import { fastRetry, type StartedSim, setFaults, startTestSim } from './support/sim.js';

let sim: StartedSim;
const clients: TmsClient[] = [];

/** A client that is already logged in, so faults hit only the call under test. */
async function loggedIn(options: Partial<TmsClientOptions> = {}): Promise<TmsClient> {
  const client = createTmsClient({
    baseUrl: sim.url,
    apiToken: 'dev-api-token',
    retry: fastRetry,
    ...options,
  });
  clients.push(client);
  await client.listInvoices({ limit: 1 }).next();
  return client;
}

beforeAll(async () => {
  sim = await startTestSim();
});
afterEach(async () => {
  await setFaults(sim.url, 'none');
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
afterAll(async () => {
  await sim?.close();
});

describe('timeouts, size and rate limits against the simulator', () => {
  // undici checks headers and body timeouts on a ~1 s tick, so the server must be slower than that.
  it('gives up on a slow server with a headers timeout', async () => {
    const client = await loggedIn({ timeouts: { headersMs: 100 }, retry: { ...fastRetry, attempts: 2 } });
    await setFaults(sim.url, { latencyMs: 2_500 });
    const error = await client
      .listInvoices()
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'TMS_TIMEOUT', phase: 'headers', attempts: 2 });
  });

  it('gives up on a body that stalls mid-way with a body timeout', async () => {
    const client = await loggedIn({ timeouts: { bodyMs: 150 }, retry: { ...fastRetry, attempts: 2 } });
    await setFaults(sim.url, { stall: 1, stallMs: 3_000 });
    const error = await client
      .listInvoices({ limit: 100 })
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: 'body', attempts: 2 });
  });

  it('aborts a body beyond maxBodyBytes and does not retry', async () => {
    const client = await loggedIn({ maxBodyBytes: 2_000 });
    const error = await client
      .listInvoices({ limit: 100 })
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ code: 'TMS_RESPONSE_TOO_LARGE', attempts: 1 });
    // The pool is still usable afterwards.
    await expect(client.getVersion()).resolves.toBeDefined();
  });

  it('ends a Retry-After wait as soon as the signal aborts', async () => {
    const client = await loggedIn({ retry: { ...fastRetry, maxTotalMs: 60_000 } });
    await setFaults(sim.url, { rateLimited: 1, retryAfterSeconds: 30 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 200);
    const started = Date.now();
    const error = await client
      .listInvoices({ signal: controller.signal })
      .next()
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('shutting down');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("ends every wait when the client's own signal aborts", async () => {
    const controller = new AbortController();
    const client = await loggedIn({
      signal: controller.signal,
      retry: { ...fastRetry, minDelayMs: 10_000, maxDelayMs: 10_000 },
      random: () => 0.99,
    });
    await setFaults(sim.url, { serverError: 1 });
    setTimeout(() => controller.abort(new Error('client closed')), 200);
    await expect(client.getTrailers()).rejects.toThrow('client closed');
  });

  it('spaces its requests to requestsPerSecond and stays under the server limit without a 429', async () => {
    await sim.close();
    sim = await startTestSim({ rateLimitPerSecond: 10 });
    const client = await loggedIn({ requestsPerSecond: 10, retry: { ...fastRetry, attempts: 1 } });
    const started = Date.now();
    await Promise.all(Array.from({ length: 10 }, () => client.getVersion()));
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
  });
});
