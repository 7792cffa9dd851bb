import { describe, expect, it } from 'vitest';
import { createConcurrencyLimit } from '../../src/client/concurrency-limit.js';
import { createTmsClient } from '../../src/client/index.js';
import { createLocalBudget } from '../../src/client/request-budget.js';
import { setFaults, startTestSim } from './support/sim.js';

describe('the adaptive concurrency limit', () => {
  it('starts low, grows by one per good answer while in use, and stops at its ceiling', async () => {
    const limit = createConcurrencyLimit({ max: 6 });
    expect(limit.view()).toEqual({ limit: 4, inFlight: 0, waiting: 0 });
    for (let round = 0; round < 10; round++) {
      const slots = await Promise.all(Array.from({ length: limit.view().limit }, () => limit.acquire()));
      for (const release of slots) release('ok');
    }
    expect(limit.view().limit).toBe(6);
  });

  it('does not grow while it is not in use', async () => {
    const limit = createConcurrencyLimit({ max: 16 });
    for (let i = 0; i < 50; i++) (await limit.acquire())('ok');
    expect(limit.view().limit).toBe(4);
  });

  it('shrinks by a tenth on a drop, once for a burst of drops of sends that started together', async () => {
    const limit = createConcurrencyLimit({ initial: 10, max: 16 });
    const burst = await Promise.all(Array.from({ length: 10 }, () => limit.acquire()));
    for (const release of burst) release('drop');
    expect(limit.view().limit).toBe(9);
    (await limit.acquire())('drop');
    expect(limit.view().limit).toBe(8);
  });

  it('queues callers beyond the limit, lets the next in on release (saying so), and drops an aborted waiter', async () => {
    const limit = createConcurrencyLimit({ initial: 1, max: 1 });
    const first = await limit.acquire();
    const controller = new AbortController();
    const aborted = limit.acquire(controller.signal);
    const second = limit.acquire();
    expect(limit.view()).toMatchObject({ inFlight: 1, waiting: 2 });
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    // Each release says whether a waiting send took the slot (the client then lets it leave first).
    expect(first('ok')).toBe(true);
    expect((await second)('ok')).toBe(false);
    expect(limit.view()).toEqual({ limit: 1, inFlight: 0, waiting: 0 });
  });
});

describe('the request budget', () => {
  it('holds every send while paused (a 429 Retry-After), then lets them go', async () => {
    let now = 0;
    const budget = createLocalBudget(0, () => now);
    await budget.pause(50);
    let sent = false;
    const waiting = budget.take().then(() => {
      sent = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent).toBe(false);
    now = 60;
    await waiting;
    expect(sent).toBe(true);
  });
});

describe('the client against the simulator', () => {
  it('raises the limit to its ceiling while the TMS answers well, lowers it when it fails, and counts retries and 429s', async () => {
    const sim = await startTestSim();
    const client = createTmsClient({
      baseUrl: sim.url,
      apiToken: 'dev-api-token',
      connections: 12,
      retry: { minDelayMs: 1, maxDelayMs: 5 },
    });
    try {
      const calls = () => Promise.all(Array.from({ length: 60 }, () => client.getVersion()));
      await calls();
      expect(client.traffic()).toMatchObject({ limit: 12, inFlight: 0, breaker: 'closed' });
      await setFaults(sim.url, { serverError: 0.5, rateLimited: 0.2, retryAfterSeconds: 0 });
      await calls();
      await setFaults(sim.url, 'none');
      const traffic = client.traffic();
      expect(traffic.limit).toBeLessThan(12);
      expect(traffic.retries).toBe(traffic.sends - traffic.requests);
      expect(traffic.retries).toBeGreaterThan(10);
      expect(traffic.rateLimited).toBeGreaterThan(0);
    } finally {
      await client.close();
      await sim.close();
    }
  });

  it('counts retries only as resends (never less while requests wait) and the wall time paused as a 429 asked', async () => {
    const sim = await startTestSim();
    const client = createTmsClient({
      baseUrl: sim.url,
      apiToken: 'dev-api-token',
      connections: 2,
      retry: { minDelayMs: 1, maxDelayMs: 5 },
    });
    try {
      await client.getVersion();
      await setFaults(sim.url, { rateLimited: 1, retryAfterSeconds: 1 });
      let done = false;
      const calls = Promise.all(Array.from({ length: 20 }, () => client.getVersion())).finally(() => {
        done = true;
      });
      const seen = [];
      while (!done && seen.length < 200) {
        seen.push(client.traffic());
        if (seen.length === 50) await setFaults(sim.url, 'none');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await calls;
      // Requests waited for a slot or for the pause, sent nothing meanwhile: no retries counted for them.
      expect(seen.some((traffic) => traffic.requests > traffic.sends)).toBe(true);
      for (const [i, traffic] of seen.entries()) {
        expect(traffic.retries).toBeGreaterThanOrEqual(seen[i - 1]?.retries ?? 0);
        expect(traffic.retries).toBeLessThanOrEqual(traffic.sends);
      }
      const traffic = client.traffic();
      expect(traffic.retries).toBe(traffic.sends - traffic.requests);
      // Every 429 asked for a second; they came together, so the pauses overlap: far less than one second each.
      expect(traffic.rateLimited).toBeGreaterThan(1);
      expect(traffic.pausedMs).toBeGreaterThanOrEqual(900);
      expect(traffic.pausedMs).toBeLessThan(1000 * traffic.rateLimited);
    } finally {
      await client.close();
      await sim.close();
    }
  });
});
