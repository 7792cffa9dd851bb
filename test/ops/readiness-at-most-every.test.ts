import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Readiness } from '../../jobs/readiness.js';
import { readinessAtMostEvery } from '../../src/ops/worker-readiness.js';

// A worker of many connections beats and is scraped for each: their readiness is read at most once
// a minute there, the reads in between answered by the last one.

const ready: Readiness = { ready: true, checks: { redis: 'ok', store: 'ok', tms: 'ok', runs: 'ok' } };

describe('readiness read at most once per period', () => {
  it('answers the calls within the period from one read, reads again after it, and never keeps a failed read', async () => {
    let reads = 0;
    let fail = false;
    const recent = readinessAtMostEvery(async () => {
      reads += 1;
      if (fail) throw new Error('store away');
      return ready;
    }, 100);
    await Promise.all([recent(), recent(), recent()]);
    expect(reads).toBe(1);
    await sleep(120);
    fail = true;
    await expect(recent()).rejects.toThrow('store away');
    expect(reads).toBe(2);
    fail = false;
    expect(await recent()).toEqual(ready);
    expect(reads).toBe(3);
  });
});
