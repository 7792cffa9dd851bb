import { describe, expect, it } from 'vitest';
import { createRunSlots } from '../../jobs/run-slots.js';

describe('run slots of one process', () => {
  it('grants at most its size, first come first served, and gives a slot back once', async () => {
    const slots = createRunSlots(2);
    const never = new AbortController().signal;
    const first = (await slots.take(never))!;
    const second = (await slots.take(never))!;
    const order: string[] = [];
    const taken = (name: string) => (release: (() => void) | undefined) => {
      order.push(name);
      return release;
    };
    const third = slots.take(never).then(taken('third'));
    const fourth = slots.take(never).then(taken('fourth'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual([]);
    first();
    first();
    await third;
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(['third']);
    second();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
  });

  it('answers undefined to a waiter whose signal aborts, and leaves its turn to the next', async () => {
    const slots = createRunSlots(1);
    const held = (await slots.take(new AbortController().signal))!;
    const stopping = new AbortController();
    const abandoned = slots.take(stopping.signal);
    const next = slots.take(new AbortController().signal);
    stopping.abort();
    expect(await abandoned).toBeUndefined();
    held();
    expect(typeof (await next)).toBe('function');
  });
});
