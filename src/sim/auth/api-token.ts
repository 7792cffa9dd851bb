import type { TokenIssuer } from './token-issuer.js';

/** The API token an account's login accepts (docs/api.md, Authentication); the admin may rotate it. */
export interface ApiToken {
  /** Whether `given` is the account's API token now. */
  accepts(given: string): boolean;
  /**
   * From now on only `next` logs in, and every access token handed out before is refused (401
   * `invalid_token`, as a bad token is): a TMS revoking or rotating an account's API token while
   * its integrations run. Rotating back to the old value restores the login, not the old tokens.
   */
  rotate(next: string): void;
}

export function createApiToken(initial: string, issuer: TokenIssuer): ApiToken {
  let current = initial;
  return {
    accepts: (given) => given === current,
    rotate(next) {
      current = next;
      issuer.revokeAll();
    },
  };
}
