import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { call, login } from './sim-test-client.js';

describe('tms-sim authentication', () => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await startSim({ invoices: 20, clients: 5 });
  });
  afterAll(() => sim.close());
  const admin = () => createSimAdminClient({ url: sim.url });

  it('exchanges the API token for an access token that expires in the future', async () => {
    const answer = await call(sim, '/auth/login-api-token', {
      method: 'POST',
      body: { apiToken: 'dev-api-token' },
    });
    expect(answer.status).toBe(200);
    const [token] = answer.json.data.items;
    expect(token.access.split('.')).toHaveLength(3);
    expect(Date.parse(token.expiresAt)).toBeGreaterThan(Date.now() + 3500_000);
  });

  it('answers 401 to an unknown API token', async () => {
    const answer = await call(sim, '/auth/login-api-token', { method: 'POST', body: { apiToken: 'nope' } });
    expect(answer.status).toBe(401);
    expect(answer.json.error.status).toBe(401);
  });

  it('answers 401 without a token, with a malformed one and with an expired one', async () => {
    const expired = await admin().mintToken({ type: 'apitoken', ttlSeconds: -10 });
    expect((await call(sim, '/invoice/invoices/')).status).toBe(401);
    expect((await call(sim, '/invoice/invoices/', { token: 'not-a-token' })).status).toBe(401);
    const tampered = `${(await login(sim)).slice(0, -3)}abc`;
    expect((await call(sim, '/invoice/invoices/', { token: tampered })).status).toBe(401);
    const answer = await call(sim, '/invoice/invoices/', { token: expired.access });
    expect(answer.status).toBe(401);
    expect(answer.json.error.code).toBe('token_expired');
  });

  it('answers 403 to a token without the scope of the service', async () => {
    const invoiceOnly = await admin().mintToken({ type: 'apitoken', scopes: ['invoice'] });
    expect((await call(sim, '/invoice/invoices/', { token: invoiceOnly.access })).status).toBe(200);
    const answer = await call(sim, '/client/clients/', { token: invoiceOnly.access });
    expect(answer.status).toBe(403);
    expect(answer.json.error.code).toBe('insufficient_scope');
  });

  it('answers 403 to a driver token or a foreign audience on the REST services', async () => {
    const driver = await admin().mintToken({ type: 'driver', operatorId: '1001' });
    expect((await call(sim, '/invoice/invoices/', { token: driver.access })).status).toBe(403);
    const foreign = await admin().mintToken({ type: 'apitoken', audience: ['driver'] });
    expect((await call(sim, '/invoice/invoices/', { token: foreign.access })).status).toBe(403);
  });

  it('lets a driver token with an operator claim call the Driver API without operatorId', async () => {
    const driver = await admin().mintToken({ type: 'driver', operatorId: '1001' });
    expect((await call(sim, '/driver-api/tasks/', { token: driver.access })).status).toBe(200);
    const access = await login(sim);
    expect((await call(sim, '/driver-api/tasks/', { token: access })).status).toBe(400);
    expect((await call(sim, '/driver-api/tasks/?operatorId=1001', { token: access })).status).toBe(200);
    expect((await call(sim, '/driver-api/tasks/?operatorId=1002', { token: driver.access })).status).toBe(
      403,
    );
  });

  it('refuses the API token at login and every access token handed out before once the token is rotated, and logs in with the new one', async () => {
    const before = await login(sim);
    const minted = await admin().mintToken({ type: 'driver', operatorId: '1001' });
    await admin().rotateApiToken('rotated-api-token');
    try {
      const refused = await call(sim, '/auth/login-api-token', {
        method: 'POST',
        body: { apiToken: 'dev-api-token' },
      });
      expect(refused.status).toBe(401);
      expect(refused.json.error.code).toBe('unknown_api_token');
      for (const [path, token] of [
        ['/invoice/invoices/', before],
        ['/driver-api/tasks/', minted.access],
      ] as const) {
        const answer = await call(sim, path, { token });
        expect(answer.status).toBe(401);
        expect(answer.json.error.code).toBe('invalid_token');
      }
      const after = await login(sim, 'rotated-api-token');
      expect((await call(sim, '/invoice/invoices/', { token: after })).status).toBe(200);
    } finally {
      await admin().rotateApiToken('dev-api-token');
    }
    // Restored: the token logs in again; what it had handed out before stays refused.
    expect((await call(sim, '/invoice/invoices/', { token: await login(sim) })).status).toBe(200);
    expect((await call(sim, '/invoice/invoices/', { token: before })).status).toBe(401);
  });

  it('answers 422 to a rotation without an API token', async () => {
    const answer = await call(sim, '/_sim/api-token', {
      method: 'PUT',
      body: { apiToken: '' },
      headers: { 'x-sim-admin': 'dev-admin-token' },
    });
    expect(answer.status).toBe(422);
    expect(await login(sim)).toBeTruthy();
  });

  it('answers 401 on admin routes without the admin header', async () => {
    expect((await call(sim, '/_sim/truth')).status).toBe(401);
  });
});

describe('tms-sim with opaque access tokens', () => {
  it('refuses the opaque access tokens handed out before a rotation', async () => {
    const sim = await startSim({ invoices: 5, clients: 1, variant: { tokenFormat: 'opaque' } });
    try {
      const before = await login(sim);
      expect((await call(sim, '/invoice/invoices/', { token: before })).status).toBe(200);
      await createSimAdminClient({ url: sim.url }).rotateApiToken('dev-api-token');
      const answer = await call(sim, '/invoice/invoices/', { token: before });
      expect(answer.status).toBe(401);
      expect(answer.json.error.code).toBe('invalid_token');
      expect((await call(sim, '/invoice/invoices/', { token: await login(sim) })).status).toBe(200);
    } finally {
      await sim.close();
    }
  });
});

describe('tms-sim rate limit', () => {
  it("answers 429 with Retry-After once the tenant's tokens together spend its requests per second", async () => {
    const sim = await startSim({ invoices: 5, clients: 1, rateLimitPerSecond: 3 });
    try {
      const token = await login(sim);
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push(await call(sim, '/invoice/invoices/', { token }));
      expect(statuses.slice(0, 3).map((answer) => answer.status)).toEqual([200, 200, 200]);
      const limited = statuses.find((answer) => answer.status === 429)!;
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const other = await login(sim);
      expect((await call(sim, '/invoice/invoices/', { token: other })).status).toBe(429);
    } finally {
      await sim.close();
    }
  });

  it('counts its API answers per wall-clock second, 429s apart and the login left out', async () => {
    const sim = await startSim({ invoices: 5, clients: 1, rateLimitPerSecond: 3 });
    try {
      const token = await login(sim);
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await call(sim, '/invoice/invoices/', { token })).status);
      const seconds = await createSimAdminClient({ url: sim.url }).requestsPerSecond();
      const sum = (pick: (second: (typeof seconds)[number]) => number) =>
        seconds.reduce((total, second) => total + pick(second), 0);
      expect(sum((second) => second.answered)).toBe(5);
      expect(sum((second) => second.rateLimited)).toBe(statuses.filter((status) => status === 429).length);
      expect(sum((second) => second.rateLimited)).toBeGreaterThan(0);
      for (const { second } of seconds) expect(Math.abs(second - Date.now() / 1000)).toBeLessThan(60);
    } finally {
      await sim.close();
    }
  });
});
