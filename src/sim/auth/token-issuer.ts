import { randomBytes, randomUUID } from 'node:crypto';
import { SimHttpError } from '../sim-http-error.js';
import { signJwt, verifyJwt } from './jwt.js';

export type TokenType = 'apitoken' | 'driver';

/** What a token grants (docs/api.md, Authentication). */
export interface TokenClaims {
  readonly typ: TokenType;
  readonly aud: readonly string[];
  readonly scopes: readonly string[];
  /** Operator claim: the operator a driver (or an operator-bound API token) acts for. */
  readonly operator?: string;
  /** Expiry, seconds since the epoch. */
  readonly exp: number;
}

export interface IssuedToken {
  readonly access: string;
  readonly expiresAt: string;
}

export interface TokenIssuer {
  /** `opaque`: a random string kept in memory; `jwt`: an HS256 JWT under a per-process secret. */
  issue(claims: Omit<TokenClaims, 'exp'>, ttlSeconds: number, format: 'jwt' | 'opaque'): IssuedToken;
  /** The claims of a bearer token; 401 when it is malformed, unknown or expired. */
  verify(token: string): TokenClaims;
  /** Every token issued so far becomes unknown (401 `invalid_token`); those issued after are good. */
  revokeAll(): void;
}

const unauthorized = (code: string, message: string) => new SimHttpError(401, code, message);

export function createTokenIssuer(now: () => number): TokenIssuer {
  let secret = randomBytes(32);
  const opaque = new Map<string, TokenClaims>();
  return {
    issue(claims, ttlSeconds, format) {
      const issuedAt = Math.floor(now() / 1000);
      const full: TokenClaims = { ...claims, exp: issuedAt + ttlSeconds };
      const expiresAt = new Date(full.exp * 1000).toISOString();
      if (format === 'opaque') {
        const access = randomBytes(24).toString('base64url');
        opaque.set(access, full);
        return { access, expiresAt };
      }
      return { access: signJwt({ ...full, iat: issuedAt, jti: randomUUID() }, secret), expiresAt };
    },
    verify(token) {
      const claims = opaque.get(token) ?? verifyJwt(token, secret);
      if (!claims || !isClaims(claims))
        throw unauthorized('invalid_token', 'the access token is malformed or unknown');
      if (claims.exp * 1000 <= now())
        throw unauthorized('token_expired', 'the access token has expired; log in again');
      return claims;
    },
    revokeAll() {
      // A JWT under the old secret no longer verifies: exactly a token with a bad signature.
      secret = randomBytes(32);
      opaque.clear();
    },
  };
}

function isClaims(value: object): value is TokenClaims {
  const claims = value as Partial<TokenClaims>;
  return (
    (claims.typ === 'apitoken' || claims.typ === 'driver') &&
    Array.isArray(claims.aud) &&
    Array.isArray(claims.scopes) &&
    typeof claims.exp === 'number'
  );
}
