import { getEventListeners } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkSignals } from '../../src/linked-signals.js';

describe('linkSignals (the per-request signal, in place of AbortSignal.any)', () => {
  it('aborts with the reason of the first source to abort', () => {
    const first = new AbortController();
    const second = new AbortController();
    const linked = linkSignals(first.signal, undefined, second.signal);
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

  it('no longer follows its sources once unlinked, and leaves no listener on them', () => {
    const source = new AbortController();
    const added: string[] = [];
    const removed: string[] = [];
    const { addEventListener, removeEventListener } = source.signal;
    source.signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
      added.push(String(args[0]));
      addEventListener.apply(source.signal, args);
    };
    source.signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
      removed.push(String(args[0]));
      removeEventListener.apply(source.signal, args);
    };
    const linked = linkSignals(source.signal);
    linked.unlink();
    source.abort('late');
    expect(linked.signal.aborted).toBe(false);
    expect(added).toEqual(['abort']);
    expect(removed).toEqual(['abort']);
  });
});

describe('AbortSignal.any, which the product never calls', () => {
  it('leaves nothing on a source that outlives the signals linked to it', () => {
    const stopping = new AbortController().signal;
    for (let run = 0; run < 1000; run++) linkSignals(stopping, new AbortController().signal).unlink();
    expect(getEventListeners(stopping, 'abort')).toHaveLength(0);
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
