import { afterEach, expect, it, vi } from 'vitest';
import { startRunBound } from '../../src/sync/run-bound.js';
import { RunBoundError } from '../../src/sync/sync-errors.js';

const origin = (partition: string) => ({ stream: 'tasks', partition });

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

it('keeps one timer for the time bounds of every run in flight, none once they ended', () => {
  const intervals = vi.spyOn(globalThis, 'setInterval');
  const timeouts = vi.spyOn(globalThis, 'setTimeout');
  const cleared = vi.spyOn(globalThis, 'clearInterval');
  const bounds = Array.from({ length: 200 }, (_, at) =>
    startRunBound(origin(String(at)), { maxRunPages: 10, maxRunSeconds: 60 }),
  );
  try {
    expect([intervals.mock.calls.length, timeouts.mock.calls.length]).toEqual([1, 0]);
  } finally {
    for (const bound of bounds) bound.end();
  }
  expect(cleared.mock.calls.length).toBe(1);
});

it('stops a run past sync.maxRunSeconds with a RunBoundError, and only that run', () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
  const short = startRunBound(origin('short'), { maxRunPages: 10, maxRunSeconds: 1 });
  const long = startRunBound(origin('long'), { maxRunPages: 10, maxRunSeconds: 5 });
  vi.advanceTimersByTime(900);
  expect(short.signal.aborted).toBe(false);
  vi.advanceTimersByTime(400);
  expect(short.signal.aborted).toBe(true);
  expect(short.exceeded).toBeInstanceOf(RunBoundError);
  expect(short.exceeded?.message).toMatch(/1 s \(sync\.maxRunSeconds\)/);
  expect(long.signal.aborted).toBe(false);
  long.end();
  short.end();
});

it('stops a run at sync.maxRunPages, and follows the stop signal it was given', () => {
  const paged = startRunBound(origin('paged'), { maxRunPages: 3, maxRunSeconds: 60 });
  paged.committed(2);
  expect(paged.signal.aborted).toBe(false);
  paged.committed(3);
  expect(paged.exceeded?.message).toMatch(/3 pages \(sync\.maxRunPages\)/);
  paged.end();

  const stop = new AbortController();
  const stopped = startRunBound(origin('stopped'), { maxRunPages: 3, maxRunSeconds: 60 }, stop.signal);
  stop.abort(new Error('shutting down'));
  expect(stopped.signal.aborted).toBe(true);
  expect(stopped.exceeded).toBeUndefined();
  stopped.committed(5);
  expect(stopped.exceeded).toBeUndefined();
  stopped.end();
});
