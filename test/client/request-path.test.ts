import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildQuery, type QueryParams } from '../../src/client/request-path.js';

// A unit test of a pure function: the query string of a request, against the WHATWG serializer
// it replaces (URLSearchParams), on any text, lone surrogates included.
const text = fc.string({ unit: 'binary', maxLength: 12 });
const value = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(undefined),
  fc.array(text, { maxLength: 3 }),
);

function serialized(params: QueryParams): string {
  const search = new URLSearchParams();
  for (const [name, item] of Object.entries(params)) {
    if (item === undefined) continue;
    search.append(name, Array.isArray(item) ? item.join(',') : String(item));
  }
  return search.toString();
}

describe('a query string', () => {
  it('is what URLSearchParams writes for the same parameters, byte for byte', () => {
    fc.assert(
      fc.property(fc.dictionary(text, value, { maxKeys: 5 }), (params) => {
        expect(buildQuery(params as QueryParams)).toBe(serialized(params as QueryParams));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a space as +, keeps *-._ and escapes the rest of encodeURIComponent leaves', () => {
    expect(buildQuery({ q: "a b!'()~*-._", ids: ['1/2', '3'], since: '2026-12-02T05:00:00.000Z' })).toBe(
      'q=a+b%21%27%28%29%7E*-._&ids=1%2F2%2C3&since=2026-12-02T05%3A00%3A00.000Z',
    );
    expect(buildQuery(undefined)).toBe('');
    expect(buildQuery({ gone: undefined, page: 2 })).toBe('page=2');
  });
});
