import { describe, expect, it } from 'vitest';
import { linkSignals } from '../../src/client/abortable-sleep.js';

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
