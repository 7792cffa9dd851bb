import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries the signature of a webhook body. */
export const signatureHeader = 'x-tms-signature';

/**
 * What a sender puts in the header, in the form Stripe uses: `t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<raw body>" with the shared secret>`. The timestamp is signed with the body,
 * so a captured request cannot be sent again once it is older than the tolerance.
 */
export function signBody(secret: string, body: Buffer | string, timestampSeconds = nowSeconds()): string {
  return `t=${timestampSeconds},v1=${digest(secret, timestampSeconds, body)}`;
}

export interface VerifyOptions {
  /** How far the signed timestamp may be from now, either way (clock skew, delivery time). @default 300 */
  readonly toleranceSeconds?: number;
  /** The clock, in milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** Whether the header signs these exactly bytes, recently; when not, why (for the 401's body). */
export type SignatureCheck = { readonly valid: true } | { readonly valid: false; readonly reason: string };

const expectedForm = 'expected t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> (docs/worker.md)';

/** Checks a signature header in constant time; any malformed value is invalid, with a reason. */
export function verifySignature(
  secret: string,
  body: Buffer,
  header: string | string[] | undefined,
  options: VerifyOptions = {},
): SignatureCheck {
  if (typeof header !== 'string') return invalid(`missing ${signatureHeader} header: ${expectedForm}`);
  if (header.trim().startsWith('sha256=')) {
    return invalid(`the form sha256=<hmac> carries no timestamp and is no longer accepted: ${expectedForm}`);
  }
  const { timestamp, signatures } = parseHeader(header);
  if (timestamp === undefined || signatures.length === 0)
    return invalid(`malformed signature: ${expectedForm}`);
  const expected = Buffer.from(digest(secret, timestamp, body));
  const matches = signatures.some((given) => {
    const bytes = Buffer.from(given);
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  });
  if (!matches) return invalid('the signature does not match the body');
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const ageSeconds = Math.abs(Math.floor((options.now ?? Date.now)() / 1000) - timestamp);
  if (ageSeconds > toleranceSeconds) {
    return invalid(`the signed timestamp is ${ageSeconds} s away from now, more than ${toleranceSeconds} s`);
  }
  return { valid: true };
}

/** `t=...` once and `v1=...` one or more times (several while a secret is being rotated). */
function parseHeader(header: string): { timestamp: number | undefined; signatures: string[] } {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2) as [string, string?];
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  return { timestamp, signatures };
}

function digest(secret: string, timestampSeconds: number, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest('hex');
}

const invalid = (reason: string): SignatureCheck => ({ valid: false, reason });
const nowSeconds = () => Math.floor(Date.now() / 1000);
