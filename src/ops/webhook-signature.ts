import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries the signature of a webhook body. */
export const signatureHeader = 'x-tms-signature';

/** `sha256=<hex HMAC-SHA256 of the raw body with the shared secret>`, what a sender puts in the header. */
export function signBody(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether `header` is the signature of exactly these bytes; constant time, any malformed value is false. */
export function verifySignature(
  secret: string,
  body: Buffer,
  header: string | string[] | undefined,
): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
