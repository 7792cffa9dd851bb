import { type EventEmitter, getEventListeners } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pMap from 'p-map';
import pRetry from 'p-retry';
import { describe, expect, it } from 'vitest';
import { forLibrary, linkSignals } from '../../src/linked-signals.js';

describe('linkSignals (the per-request signal, in place of AbortSignal.any)', () => {
  it('aborts with the reason of the first source to abort', () => {
    const first = new AbortController();
    const second = new AbortController();
    const linked = linkSignals(first.signal, second.signal);
    second.abort('second');
    first.abort('first');
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('second');
  });

  it('is aborted at once by a source aborted already', () => {
    const source = new AbortController();
    source.abort('before');
    expect(linkSignals(source.signal).signal.reason).toBe('before');
  });

  it('aborts by itself, leaving its sources alone', () => {
    const source = new AbortController();
    const linked = linkSignals(source.signal);
    linked.abort('deadline');
    expect(linked.signal.reason).toBe('deadline');
    expect(source.signal.aborted).toBe(false);
  });

  it('no longer follows its sources once unlinked', () => {
    const source = new AbortController();
    const linked = linkSignals(source.signal);
    linked.unlink();
    source.abort('late');
    expect(linked.signal.aborted).toBe(false);
  });

  it('adds one listener to a source, however many links it has had or has', () => {
    const source = new AbortController();
    const added: string[] = [];
    const { addEventListener } = source.signal;
    source.signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
      added.push(String(args[0]));
      addEventListener.apply(source.signal, args);
    };
    const held = [linkSignals(source.signal), linkSignals(undefined, source.signal)];
    for (let request = 0; request < 100; request++) linkSignals(source.signal).unlink();
    source.abort('stop');
    expect(added).toEqual(['abort']);
    expect(held.map((link) => link.signal.reason)).toEqual(['stop', 'stop']);
  });

  it('a link aborted by itself leaves its sources, and they abort the others only', () => {
    const source = new AbortController();
    const deadline = linkSignals(source.signal);
    const other = linkSignals(source.signal);
    deadline.abort('deadline');
    source.abort('stop');
    expect(deadline.signal.reason).toBe('deadline');
    expect(other.signal.reason).toBe('stop');
  });
});

describe('AbortSignal.any, which the product never calls', () => {
  it('leaves one listener on a source that outlives the signals linked to it', () => {
    const stopping = new AbortController().signal;
    for (let run = 0; run < 1000; run++) linkSignals(stopping, new AbortController().signal).unlink();
    expect(getEventListeners(stopping, 'abort')).toHaveLength(1);
  });

  it('appears in no source file: on Node 20 it leaks a reference per call into a long-lived source', () => {
    const root = join(import.meta.dirname, '..', '..');
    const sources = ['src', 'jobs', 'config', 'bin', 'bench'].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(ts|js|mjs)$/.test(file))
        .map((file) => join(dir, file)),
    );
    expect(sources.length).toBeGreaterThan(100);
    const calling = sources.filter((file) =>
      /AbortSignal\.any\(/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(calling).toEqual([]);
  });
});

describe('a linked signal handed on in parts', () => {
  it('unlinks and aborts through its members called alone', () => {
    const source = new AbortController();
    const { signal, unlink } = linkSignals(source.signal);
    unlink();
    source.abort('late');
    expect(signal.aborted).toBe(false);
    const other = linkSignals(new AbortController().signal);
    const { abort } = other;
    abort('deadline');
    expect(other.signal.reason).toBe('deadline');
  });
});

describe('a link as a listener hears it, its AbortSignal made when read', () => {
  it('emits abort once, with aborted and reason set, whatever aborts it', () => {
    const source = new AbortController();
    const linked = linkSignals(source.signal);
    const heard: unknown[] = [];
    const { stop } = linked;
    stop.addEventListener('abort', () => heard.push([stop.aborted, stop.reason]), { once: true });
    source.abort('stop');
    linked.abort('deadline');
    expect(heard).toEqual([[true, 'stop']]);
  });

  it('gives an AbortSignal read after it aborted the reason it aborted with', () => {
    const linked = linkSignals();
    linked.abort('deadline');
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('deadline');
  });

  it('aborts an AbortSignal read before, once, with the first reason', () => {
    const source = new AbortController();
    const linked = linkSignals(source.signal);
    const { signal } = linked;
    const reasons: unknown[] = [];
    signal.addEventListener('abort', () => reasons.push(signal.reason));
    linked.abort('deadline');
    source.abort('stop');
    expect(reasons).toEqual(['deadline']);
  });
});

describe("a link as a stop signal (a run's signal: no AbortSignal made)", () => {
  it('throws its reason once aborted, and tells a listener once', () => {
    const linked = linkSignals();
    const heard: unknown[] = [];
    const once = () => heard.push('once');
    const removed = () => heard.push('removed');
    linked.stop.addEventListener('abort', once, { once: true });
    linked.stop.addEventListener('abort', removed);
    linked.stop.removeEventListener('abort', removed);
    expect(() => linked.stop.throwIfAborted()).not.toThrow();
    linked.abort('bound');
    linked.abort('again');
    expect(heard).toEqual(['once']);
    expect(() => linked.stop.throwIfAborted()).toThrow('bound');
    expect(linked.stop.reason).toBe('bound');
  });

  it('is a source for further links (a request following its run), one listener on it', () => {
    const stopping = new AbortController();
    const run = linkSignals(stopping.signal);
    for (let request = 0; request < 20; request++) linkSignals(run.stop).unlink();
    const request = linkSignals(run.stop);
    expect((run.stop as unknown as EventEmitter).listenerCount('abort')).toBe(1);
    stopping.abort('stop');
    expect(request.stop.aborted).toBe(true);
    expect(request.stop.reason).toBe('stop');
  });

  it('stops p-map and p-retry as an AbortSignal would (they are handed it through forLibrary)', async () => {
    const linked = linkSignals();
    const started: number[] = [];
    const mapped = pMap(
      [1, 2, 3, 4],
      async (item) => {
        started.push(item);
        if (item === 1) linked.abort(new Error('stopped'));
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
      { concurrency: 1, signal: forLibrary(linked.stop) },
    );
    await expect(mapped).rejects.toThrow('stopped');
    expect(started).toEqual([1]);
    let attempts = 0;
    const retried = pRetry(
      async () => {
        attempts++;
        throw new Error('fails');
      },
      { retries: 5, minTimeout: 0, maxTimeout: 0, signal: forLibrary(linked.stop) },
    );
    await expect(retried).rejects.toThrow('stopped');
    expect(attempts).toBe(0);
  });
});
