import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from '../../src/ops/webhook-signature.js';

describe('webhook signature', () => {
  const secret = 'whsec-test';
  const body = Buffer.from('{"streams":["invoices"]}');
  const nowSeconds = 1_800_000_000;
  const at = () => nowSeconds * 1000 + 999;

  it('accepts a timestamp up to the tolerance away from now either way, and refuses one a second further', () => {
    for (const offset of [-300, 0, 300]) {
      expect(verifySignature(secret, body, signBody(secret, body, nowSeconds + offset), { now: at })).toEqual(
        {
          valid: true,
        },
      );
    }
    for (const offset of [-301, 301]) {
      const check = verifySignature(secret, body, signBody(secret, body, nowSeconds + offset), { now: at });
      expect(check).toEqual({
        valid: false,
        reason: expect.stringMatching(/301 s away from now, more than 300 s/),
      });
    }
  });

  it('refuses a signature of other bytes, whatever its timestamp', () => {
    const check = verifySignature(secret, Buffer.from('{}'), signBody(secret, body, nowSeconds), { now: at });
    expect(check).toEqual({ valid: false, reason: 'the signature does not match the body' });
  });
});
