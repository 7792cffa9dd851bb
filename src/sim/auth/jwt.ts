import { createHmac, timingSafeEqual } from 'node:crypto';

const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/** An HS256 JWT (RFC 7519) over the claims; node:crypto only. */
export function signJwt(claims: object, secret: Buffer): string {
  const body = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/** The claims of a JWT signed with `secret`, or undefined when it is malformed or its signature is wrong. */
export function verifyJwt(token: string, secret: Buffer): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== header) return undefined;
  const given = Buffer.from(parts[2]!, 'base64url');
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString());
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
