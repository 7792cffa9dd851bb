import type { Logger } from 'pino';
import type { StopSignal } from '../linked-signals.js';

/** An access token and when it stops working (the token itself is opaque: never decoded). */
export interface AccessToken {
  readonly access: string;
  readonly expiresAtMs: number;
}

/** Caches the access token of the login operation (docs/api.md, Authentication) and renews it. */
export interface AuthSession {
  /** The cached token, or a fresh one when none is cached or it is about to expire. */
  accessToken(signal?: StopSignal): Promise<string>;
  /** Forgets `access` after the server refused it; a newer token obtained meanwhile stays. */
  invalidate(access: string): void;
  /**
   * The first contact: until a login has succeeded, logs in once, sent once and never retried, so
   * a wrong URL or token shows at once (its error is thrown as it is). Callers at the same moment
   * share one login, and a failure is answered again for `recheckAfterMs` without a request (the
   * jobs of one tick meet one refusal, not one each). Once a login succeeded, a no-op: a later
   * failure is an outage, met with the client's patience, not a configuration mistake.
   */
  check(signal?: StopSignal): Promise<void>;
}

export interface AuthSessionOptions {
  /** `once`: send the login once, without retries (the first contact). */
  readonly login: (signal: StopSignal | undefined, once?: boolean) => Promise<AccessToken>;
  readonly now: () => number;
  /** Re-login this long before expiry, but at most half the token's lifetime. */
  readonly refreshMarginMs: number;
  readonly logger: Logger;
  /** The client's own signal: a shared login is not cancelled by one caller's signal. */
  readonly signal: StopSignal | undefined;
  /** How long a failed first contact is answered again without a request. @default 5000 */
  readonly recheckAfterMs?: number;
}

interface CachedToken extends AccessToken {
  readonly renewAtMs: number;
}

export function createAuthSession(options: AuthSessionOptions): AuthSession {
  let current: CachedToken | undefined;
  // One login in flight at a time; concurrent callers share it.
  let pending: Promise<CachedToken> | undefined;
  let proven = false;
  let checking: Promise<void> | undefined;
  let refused: { readonly error: unknown; readonly untilMs: number } | undefined;

  async function login(once = false): Promise<CachedToken> {
    const loggedInAt = options.now();
    const token = await options.login(options.signal, once);
    proven = true;
    const margin = Math.min(options.refreshMarginMs, (token.expiresAtMs - loggedInAt) / 2);
    options.logger.info({ expiresAt: new Date(token.expiresAtMs).toISOString() }, 'logged in to the TMS');
    return { ...token, renewAtMs: token.expiresAtMs - margin };
  }

  function shared(): Promise<CachedToken> {
    pending ??= login()
      .then((token) => {
        current = token;
        return token;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  }

  function firstContact(): Promise<void> {
    checking ??= login(true)
      .then((token) => {
        current = token;
      })
      .catch((error: unknown) => {
        refused = { error, untilMs: options.now() + (options.recheckAfterMs ?? 5000) };
        throw error;
      })
      .finally(() => {
        checking = undefined;
      });
    return checking;
  }

  return {
    async check(signal) {
      signal?.throwIfAborted();
      if (proven) return;
      if (refused && options.now() < refused.untilMs) throw refused.error;
      await raceAbort(firstContact(), signal);
    },
    async accessToken(signal) {
      signal?.throwIfAborted();
      if (current && options.now() < current.renewAtMs) return current.access;
      return (await raceAbort(shared(), signal)).access;
    },
    invalidate(access) {
      if (current?.access === access) current = undefined;
    },
  };
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function raceAbort<T>(promise: Promise<T>, signal: StopSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
