import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpStatusError, NetworkError, parseRetryAfter, retryDelayMs } from '../../src/client/index.js';
import { createLocalBudget } from '../../src/client/request-budget.js';

const retry = { attempts: 5, maxTotalMs: 60_000, minDelayMs: 100, maxDelayMs: 2_000 };
const network = new NetworkError('reset', { mayHaveReachedServer: true });

describe('retry policy arithmetic', () => {
  it('waits a random time below min(maxDelayMs, minDelayMs * 2^(n-1)) before retry n (full jitter)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, random) => {
          const delay = retryDelayMs(network, n, { retry, random: () => random });
          const ceiling = Math.min(retry.maxDelayMs, retry.minDelayMs * 2 ** (n - 1));
          return delay >= 0 && delay < ceiling + 1e-9;
        },
      ),
    );
  });

  it("uses the server's Retry-After instead of the back-off, even beyond maxDelayMs", () => {
    const limited = new HttpStatusError('429', { status: 429, retryAfterMs: 5_000 });
    expect(retryDelayMs(limited, 1, { retry, random: () => 0.5 })).toBe(5_000);
  });

  it('reads Retry-After as delta-seconds or as an HTTP date, and ignores anything else', () => {
    const now = Date.parse('2024-05-01T10:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Wed, 01 May 2024 10:00:07 GMT', now)).toBe(7_000);
    expect(parseRetryAfter('Wed, 01 May 2024 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('marks 429 and 5xx retryable and every other 4xx not', () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }), (status) => {
        const error = new HttpStatusError('x', { status });
        return error.retryable === (status === 429 || status >= 500);
      }),
    );
  });
});

describe('rate limiter', () => {
  it('spaces sends to the configured rate', async () => {
    const limiter = createLocalBudget(50);
    const started = performance.now();
    await Promise.all(Array.from({ length: 11 }, () => limiter.take()));
    // 11 sends at 50/s: the first at once, the last 200 ms later.
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('ends a wait at once when its signal aborts and gives the slot back', async () => {
    const limiter = createLocalBudget(1);
    await limiter.take();
    const controller = new AbortController();
    const waiting = limiter.take(controller.signal);
    setTimeout(() => controller.abort(new Error('stop')), 20);
    const started = performance.now();
    await expect(waiting).rejects.toThrow('stop');
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('does not wait at all when the rate is 0 (off)', async () => {
    const limiter = createLocalBudget(0);
    const started = performance.now();
    for (let i = 0; i < 1000; i++) await limiter.take();
    expect(performance.now() - started).toBeLessThan(100);
  });
});
