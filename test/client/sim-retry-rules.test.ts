import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AmbiguousWriteError,
  createTmsClient,
  HttpStatusError,
  NetworkError,
  type TmsClient,
  type TmsClientOptions,
} from '../../src/client/index.js';
import { captureLogger } from './support/capture-logger.js';
import { allItems, fastRetry, type StartedSim, setFaults, startTestSim, truth } from './support/sim.js';

let sim: StartedSim;
const clients: TmsClient[] = [];

function newClient(options: Partial<TmsClientOptions> = {}): TmsClient {
  const client = createTmsClient({
    baseUrl: sim.url,
    apiToken: 'dev-api-token',
    retry: fastRetry,
    ...options,
  });
  clients.push(client);
  return client;
}

async function firstInvoiceId(client: TmsClient): Promise<string> {
  const pages = client.listInvoices({ limit: 1 });
  const id = String((await pages.next()).value!.items[0]!.id);
  await pages.return();
  return id;
}

/** Payments are recorded on finalized invoices only (the simulator's state machine); this logs the client in too. */
async function finalizedInvoiceId(client: TmsClient): Promise<string> {
  for await (const page of client.listInvoices({ limit: 100 })) {
    const found = page.items.find((invoice) => invoice.status === 'finalized');
    if (found) return String(found.id);
  }
  throw new Error('no finalized invoice');
}

const paymentCount = async (invoiceId: string) =>
  (await truth(sim.url)).invoice_payments?.[invoiceId]?.records.length ?? 0;

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

describe('retry rules against the simulator', () => {
  it('honours Retry-After on a 429 before the next attempt', async () => {
    const client = newClient();
    await client.getVersion().catch(() => undefined); // logs in before the faults start
    await setFaults(sim.url, { rateLimited: 1, retryAfterSeconds: 1 });
    const started = Date.now();
    const error = await newClient({ retry: { ...fastRetry, attempts: 2 } })
      .listInvoices()
      .next()
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(error).toMatchObject({ status: 429, code: 'TMS_RATE_LIMITED', attempts: 2, retryable: true });
  });

  it('retries 5xx answers until the attempts are used up', async () => {
    const client = newClient();
    await setFaults(sim.url, { serverError: 1 });
    const error = await client
      .listInvoices()
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ code: 'TMS_SERVER_ERROR', attempts: fastRetry.attempts });
  });

  it('retries a GET after a connection reset', async () => {
    await setFaults(sim.url, { reset: 1 });
    const error = await newClient()
      .listInvoices()
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ mayHaveReachedServer: true, attempts: fastRetry.attempts });
  });

  it('retries a GET whose body was cut short', async () => {
    await setFaults(sim.url, { truncate: 1 });
    const error = await newClient()
      .listInvoices({ limit: 50 })
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).attempts).toBe(fastRetry.attempts);
  });

  it('pages every invoice correctly through a hostile mix of faults', async () => {
    const expected = (await truth(sim.url)).invoices!['']!.records.length;
    await setFaults(sim.url, {
      rateLimited: 0.1,
      retryAfterSeconds: 0,
      serverError: 0.1,
      reset: 0.1,
      truncate: 0.1,
    });
    const client = newClient({ retry: { ...fastRetry, attempts: 10 } });
    expect(await allItems(client.listInvoices({ since: 1, limit: 10 }))).toHaveLength(expected);
  });

  it.each([
    ['400', (client: TmsClient) => client.listInvoices({ since: 1, sort: '-id' }).next(), 400],
    ['404', (client: TmsClient) => client.getInvoice('does-not-exist'), 404],
  ])('does not retry a %s', async (_, call, status) => {
    const error = await call(newClient()).catch((e: unknown) => e);
    expect(error).toMatchObject({ status, code: 'TMS_REQUEST_REJECTED', attempts: 1, retryable: false });
  });

  it('does not retry a 409 (finalizing a finalized invoice) nor a 422 (an invalid payment)', async () => {
    const client = newClient();
    const id = await firstInvoiceId(client);
    await client.finalizeInvoice(id).catch(() => undefined);
    const conflict = await client.finalizeInvoice(id).catch((e: unknown) => e);
    expect(conflict).toMatchObject({ status: 409, attempts: 1 });
    const invalid = await client
      .recordPayment(id, { amount: -1, date: 'yesterday', reference: '' })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(HttpStatusError);
    expect([400, 422]).toContain((invalid as HttpStatusError).status);
    expect((invalid as HttpStatusError).attempts).toBe(1);
  });

  it('does not repeat a payment after a 5xx: AmbiguousWriteError, at most one payment recorded', async () => {
    const client = newClient();
    const id = await finalizedInvoiceId(client);
    const before = await paymentCount(id);
    await setFaults(sim.url, { serverError: 1 });
    const error = await client
      .recordPayment(id, { amount: 5, date: '2024-05-01', reference: 'amb' })
      .catch((e: unknown) => e);
    await setFaults(sim.url, 'none');
    expect(error).toBeInstanceOf(AmbiguousWriteError);
    expect(error).toMatchObject({ code: 'TMS_AMBIGUOUS_WRITE', attempts: 1, retryable: false });
    expect(await paymentCount(id)).toBeLessThanOrEqual(before + 1);
  });

  it('does not repeat a payment after a connection reset', async () => {
    const client = newClient();
    const id = await finalizedInvoiceId(client);
    const before = await paymentCount(id);
    await setFaults(sim.url, { reset: 1 });
    const error = await client
      .recordPayment(id, { amount: 5, date: '2024-05-01', reference: 'reset' })
      .catch((e: unknown) => e);
    await setFaults(sim.url, 'none');
    expect(error).toBeInstanceOf(AmbiguousWriteError);
    expect((error as AmbiguousWriteError).cause).toBeInstanceOf(NetworkError);
    expect(await paymentCount(id)).toBeLessThanOrEqual(before + 1);
  });

  it('repeats a payment refused with 429 and records it exactly once', async () => {
    const { logger, count } = captureLogger();
    const client = newClient({ logger, retry: { ...fastRetry, attempts: 15 } });
    const id = await finalizedInvoiceId(client);
    await setFaults(sim.url, { rateLimited: 0.6, retryAfterSeconds: 0 });
    // The simulator's faults are random: pay until one payment met a 429 (20 tries miss it once in 10^8).
    for (let payment = 0; payment < 20 && count('retrying') === 0; payment++) {
      const before = await paymentCount(id);
      await client.recordPayment(id, { amount: 5, date: '2024-05-01', reference: `429-${payment}` });
      expect(await paymentCount(id)).toBe(before + 1);
    }
    await setFaults(sim.url, 'none');
    expect(count('retrying')).toBeGreaterThan(0);
  });

  it('repeats a PATCH after a 5xx: the same body gives the same state', async () => {
    const client = newClient({ retry: { ...fastRetry, attempts: 12 } });
    const id = await firstInvoiceId(client);
    await setFaults(sim.url, { serverError: 0.5 });
    await client.patchInvoice(id, { notes: 'patched twice is fine' });
    await setFaults(sim.url, 'none');
    expect((await client.getInvoice(id)).notes).toBe('patched twice is fine');
  });
});
