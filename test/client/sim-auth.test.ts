import { afterEach, describe, expect, it } from 'vitest';
import { AuthError, createTmsClient, type TmsClient, type TmsClientOptions } from '../../src/client/index.js';
import { captureLogger } from './support/capture-logger.js';
import { fastRetry, mintToken, type SimStartOptions, type StartedSim, startTestSim } from './support/sim.js';

let sim: StartedSim | undefined;
let client: TmsClient | undefined;
afterEach(async () => {
  await client?.close();
  await sim?.close();
  client = undefined;
  sim = undefined;
});

/** A simulator and a client whose log lines are kept, to count logins and look for secrets. */
async function setup(simOptions: SimStartOptions, options: Partial<TmsClientOptions> = {}) {
  sim = await startTestSim(simOptions);
  const { logger, lines, count } = captureLogger();
  client = createTmsClient({
    baseUrl: sim.url,
    apiToken: 'dev-api-token',
    retry: fastRetry,
    logger,
    ...options,
  });
  return { client, lines, logins: () => count('logged in to the TMS') };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('authentication against the simulator', () => {
  it('logs in once and reuses the token across calls', async () => {
    const { client, logins } = await setup({});
    await Promise.all([client.getVersion(), client.getTrailers(), client.listInvoices().next()]);
    await client.getVersion();
    expect(logins()).toBe(1);
  });

  it('logs in again shortly before the token expires', async () => {
    const { client, logins } = await setup({ tokenTtlSeconds: 2 });
    await client.listInvoices().next();
    await sleep(1_100); // past half the lifetime: the renewal point
    await client.listInvoices().next();
    expect(logins()).toBe(2);
  });

  it('logs in again once after a 401 and repeats the call', async () => {
    // The client's clock runs 10 s behind, so it keeps a token the server has already expired.
    const { client, logins, lines } = await setup(
      { tokenTtlSeconds: 2 },
      { now: () => Date.now() - 10_000, refreshMarginMs: 0 },
    );
    await client.listInvoices().next();
    // Counted from here: on a busy machine the first call may already have outlived its token.
    const before = logins();
    await sleep(2_200);
    await expect(client.listInvoices().next()).resolves.toBeDefined();
    expect(logins()).toBe(before + 1);
    expect(lines.some((line) => line.includes('401'))).toBe(true);
  });

  it('fails with AuthError TMS_AUTH_LOGIN_FAILED for an unknown API token, without retrying', async () => {
    const { client, logins } = await setup({}, { apiToken: 'wrong' });
    const error = await client
      .listInvoices()
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ code: 'TMS_AUTH_LOGIN_FAILED', status: 401, attempts: 1 });
    expect(String(error)).not.toContain('wrong');
    expect(logins()).toBe(0);
  });

  it('does not retry a 403 from a token without the needed permission', async () => {
    sim = await startTestSim();
    const driverToken = await mintToken(sim.url, {
      type: 'driver',
      operatorId: '1001',
      scopes: [],
      audience: ['internal'],
    });
    client = createTmsClient({ baseUrl: sim.url, driverToken, retry: fastRetry });
    const error = await client.getTasks().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ code: 'TMS_AUTH_FORBIDDEN', status: 403, attempts: 1 });
  });

  it('never writes the API token or the access token into its logs', async () => {
    const { client, lines } = await setup({ variant: { tokenFormat: 'opaque' } });
    await client.listInvoices().next();
    await client.getInvoice('missing').catch(() => undefined);
    expect(lines.join('\n')).not.toContain('dev-api-token');
    expect(lines.join('\n')).not.toMatch(/Bearer|"access"/);
  });
});
