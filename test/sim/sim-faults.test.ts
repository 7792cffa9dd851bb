import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSimAdminClient } from '../../src/sim/sim-admin-client.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { adminHeaders, call, login } from './sim-test-client.js';

describe('tms-sim fault injection', () => {
  let sim: SimHandle;
  let token: string;
  beforeAll(async () => {
    sim = await startSim({ invoices: 300, clients: 10 });
    token = await login(sim);
  });
  afterEach(() => admin().setFaults('none'));
  afterAll(() => sim.close());
  const admin = () => createSimAdminClient({ url: sim.url });
  const list = (options: { bodyTimeout?: number } = {}) =>
    request(`${sim.url}/invoice/invoices/?limit=200`, {
      headers: { authorization: `Bearer ${token}` },
      bodyTimeout: options.bodyTimeout,
    }).then(async (response) => ({
      status: response.statusCode,
      headers: response.headers,
      text: await response.body.text(),
    }));

  it('counts the answers it sent per route and status, faulted ones too, admin calls not', async () => {
    const before = (await admin().requests())['GET /invoice/invoices/'] ?? {};
    await list();
    await admin().setFaults({ rateLimited: 1 });
    await list();
    const after = (await admin().requests())['GET /invoice/invoices/'] ?? {};
    expect((after['200'] ?? 0) - (before['200'] ?? 0)).toBe(1);
    expect((after['429'] ?? 0) - (before['429'] ?? 0)).toBe(1);
    expect(Object.keys(await admin().requests()).some((route) => route.includes('/_sim/'))).toBe(false);
  });

  it('injects 429 with Retry-After in seconds, and never faults the admin routes', async () => {
    await admin().setFaults({ rateLimited: 1, retryAfterSeconds: 2 });
    const answer = await list();
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('2');
    expect(JSON.parse(answer.text).error.status).toBe(429);
    expect((await admin().truth('invoices')).invoices).toBeDefined();
  });

  it('injects 5xx answers, some with the JSON error body and some as an HTML proxy page', async () => {
    await admin().setFaults({ serverError: 1 });
    const answers = await Promise.all(Array.from({ length: 16 }, () => list()));
    expect(answers.every((answer) => answer.status >= 500 && answer.status <= 503)).toBe(true);
    const types = new Set(answers.map((answer) => String(answer.headers['content-type']).split(';')[0]));
    expect(types).toEqual(new Set(['application/json', 'text/html']));
  });

  it('resets the connection before answering', async () => {
    await admin().setFaults({ reset: 1 });
    await expect(list()).rejects.toThrow();
  });

  it('truncates a body below its Content-Length and drops the connection', async () => {
    await admin().setFaults({ truncate: 1 });
    await expect(list()).rejects.toThrow();
  });

  it('stalls mid-body for stallMs, then completes the body', async () => {
    await admin().setFaults({ stall: 1, stallMs: 2000 });
    await expect(list({ bodyTimeout: 200 })).rejects.toThrow(/timeout/i);
    await admin().setFaults({ stall: 1, stallMs: 50 });
    const answer = await list();
    expect(JSON.parse(answer.text).data.items).toHaveLength(200);
  });

  it('adds latency to every answer', async () => {
    await admin().setFaults({ latencyMs: 150 });
    const started = performance.now();
    expect((await list()).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('applies a write and then loses its answer: a reset after the commit, or a proxy 502', async () => {
    await admin().setFaults({ lostResponse: 1 });
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        call(sim, '/client/clients/', { method: 'POST', token, body: { name: `Lost ${index}` } }).then(
          (answer) => `${answer.status} ${String(answer.headers['content-type']).split(';')[0]}`,
          () => 'reset',
        ),
      ),
    );
    expect(new Set(outcomes)).toEqual(new Set(['reset', '502 text/html']));
    expect((await admin().injectedFaults()).lostResponse).toBeGreaterThanOrEqual(12);
    await admin().setFaults('none');
    const names = ((await admin().truth('clients')).clients!['']!.records as Array<{ name: string }>).map(
      (client) => client.name,
    );
    for (let index = 0; index < 12; index++)
      expect(names.filter((name) => name === `Lost ${index}`)).toHaveLength(1);
  });

  it('applies a write whose client left while its answer was delayed, but none whose client left before it ran', async () => {
    const post = async (name: string) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await request(`${sim.url}/client/clients/`, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ name }),
      }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
    };
    await admin().setFaults({ answerLatencyMs: 400 });
    await post('Left during the answer');
    await admin().setFaults({ latencyMs: 400 });
    await post('Left before the handler');
    await admin().setFaults('none');
    const names = ((await admin().truth('clients')).clients!['']!.records as Array<{ name: string }>).map(
      (client) => client.name,
    );
    expect(names.filter((name) => name === 'Left during the answer')).toHaveLength(1);
    expect(names.filter((name) => name === 'Left before the handler')).toHaveLength(0);
  });

  it('switches to a named profile at run time and rejects an unknown one with 422', async () => {
    expect((await admin().setFaults('throttled')).rateLimited).toBeGreaterThan(0);
    const answer = await call(sim, '/_sim/faults', {
      method: 'PUT',
      body: { profile: 'chaos' },
      headers: { 'x-sim-admin': 'dev-admin-token' },
    });
    expect(answer.status).toBe(422);
  });

  it('starts with the profile named in the options', async () => {
    const hostile = await startSim({ invoices: 1, clients: 1, faults: 'slow' });
    try {
      const { rates } = (await call(hostile, '/_sim/faults', { headers: adminHeaders })).json;
      expect(rates).toMatchObject({ latencyMs: 250 });
      const started = performance.now();
      await call(hostile, '/auth/login-api-token', { method: 'POST', body: { apiToken: 'dev-api-token' } });
      expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    } finally {
      await hostile.close();
    }
  });
});
