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

  it("gives a connection's first run the next free slot before the runs already waiting", async () => {
    const slots = createRunSlots(1);
    const never = new AbortController().signal;
    const held = (await slots.take(never))!;
    const order: string[] = [];
    // Each run ends as soon as it has its slot, handing it to the next.
    const waiter = (name: string, first = false) =>
      slots.take(never, first).then((release) => {
        order.push(name);
        release!();
      });
    const waiting = [waiter('a'), waiter('b'), waiter('new', true), waiter('c'), waiter('newer', true)];
    held();
    await Promise.all(waiting);
    expect(order).toEqual(['new', 'newer', 'a', 'b', 'c']);
  });

  it('leaves the turn of a first run whose signal aborts to the next', async () => {
    const slots = createRunSlots(1);
    const held = (await slots.take(new AbortController().signal))!;
    const stopping = new AbortController();
    const abandoned = slots.take(stopping.signal, true);
    const next = slots.take(new AbortController().signal);
    stopping.abort();
    expect(await abandoned).toBeUndefined();
    held();
    expect(typeof (await next)).toBe('function');
  });
});
