import { describe, expect, it } from 'vitest';
import { AnswerDigest } from '../../src/sync/strategies/answer-digest.js';

const digestOf = (parts: Array<[string, string | undefined]>, order = parts.map((_, index) => index)) => {
  const digest = new AnswerDigest(parts.length);
  for (const index of order) {
    const [asked, body] = parts[index]!;
    digest.add(index, asked, body === undefined ? undefined : Buffer.from(body));
  }
  return digest.value();
};

describe('the digest of a pass’s answers', () => {
  const parts: Array<[string, string | undefined]> = [
    ['{"id":"1"}', '{"data":{"items":[]}}'],
    ['{"id":"2"}', undefined],
    ['{"id":"3"}', '{"data":{"name":"x"}}'],
  ];

  it('is the same for the same answers, whatever order they arrived in', () => {
    expect(digestOf(parts, [2, 0, 1])).toBe(digestOf(parts));
  });

  it('differs when one answer differs by a byte, is absent, or answers another part', () => {
    const base = digestOf(parts);
    expect(digestOf([parts[0]!, parts[1]!, ['{"id":"3"}', '{"data":{"name":"y"}}']])).not.toBe(base);
    expect(digestOf([parts[0]!, parts[1]!, ['{"id":"3"}', undefined]])).not.toBe(base);
    // The same bytes for another id: a record keyed by the id asked for would be another record.
    expect(digestOf([['{"id":"9"}', '{"data":{"items":[]}}'], parts[1]!, parts[2]!])).not.toBe(base);
    expect(digestOf([parts[0]!, parts[1]!])).not.toBe(digestOf([parts[0]!, parts[1]!, ['', '']]));
  });
});
