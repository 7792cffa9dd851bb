import { LoginResponse } from '../../schemas/index.js';
import type { StopSignal } from '../linked-signals.js';
import { processSecrets } from '../secrets/secret-registry.js';
import type { ApiRequest } from './api-request.js';
import { type AccessToken, type AuthSession, createAuthSession } from './auth-session.js';
import { AuthError, HttpStatusError, InvalidArgumentError, type RequestTarget } from './client-errors.js';
import type { ResolvedClientOptions } from './client-options.js';
import { assertValid } from './response-checks.js';

/** Sends one attempt of a request (with its retries) with the token `tokenFor` gives at each send. */
type Attempt<R> = (tokenFor: () => Promise<string | undefined>) => Promise<R>;

/**
 * How a request authenticates (docs/api.md, "Authentication"): none for the login, the driver
 * token for the Driver API when one is set, else the session's access token, renewed before it
 * expires; a 401 on it logs in again once, and a second 401 is an AuthError.
 */
export class RequestAuth {
  readonly #options: ResolvedClientOptions;
  readonly #session: AuthSession;

  constructor(
    options: ResolvedClientOptions,
    login: (signal: StopSignal | undefined, once: boolean) => Promise<AccessToken>,
  ) {
    this.#options = options;
    this.#session = createAuthSession({ ...options, login: (signal, once) => login(signal, once ?? false) });
    // Whatever the TMS repeats of them (an error answer quoting the login body) is blanked in every
    // message and log line (secret-registry.ts).
    processSecrets.add(options.apiToken);
    processSecrets.add(options.driverToken);
  }

  /** The first login, sent once, until one succeeded (auth-session.ts `check`). */
  check(signal?: StopSignal): Promise<void> {
    return this.#session.check(signal);
  }

  /** Runs the request's attempt with the token its auth mode asks for. */
  async around<R>(
    request: ApiRequest,
    target: RequestTarget,
    signal: StopSignal | undefined,
    repeatable: boolean,
    attempt: Attempt<R>,
  ): Promise<R> {
    if (request.auth === 'none') return attempt(async () => undefined);
    const { driverToken } = this.#options;
    if (request.auth === 'driver' && driverToken) {
      return attempt(async () => driverToken).catch((error) =>
        rethrowUnauthorized(error, target, 'the driver token'),
      );
    }
    if (!this.#options.apiToken)
      throw new InvalidArgumentError(`option apiToken is required for ${target.method} ${target.path}`);
    let sent: string | undefined;
    const sessionToken = async () => {
      sent = await this.#session.accessToken(signal);
      return sent;
    };
    try {
      return await attempt(sessionToken);
    } catch (error) {
      if (!isUnauthorized(error)) throw error;
      if (sent) this.#session.invalidate(sent);
      if (!repeatable) rethrowUnauthorized(error, target, 'the access token');
      this.#options.logger.info({ ...target }, 'access token refused (401), logging in again');
      return attempt(sessionToken).catch((again) =>
        rethrowUnauthorized(again, target, 'a fresh access token'),
      );
    }
  }
}

/** The login's request and what its answer means: the access token, or the API token refused (AuthError). */
export async function logIn(
  send: (request: ApiRequest) => Promise<unknown>,
  options: ResolvedClientOptions,
  signal: StopSignal | undefined,
  once: boolean,
): Promise<AccessToken> {
  const target = { method: 'POST', path: options.loginPath };
  const body = await send({
    ...target,
    method: 'POST',
    auth: 'none',
    idempotent: true,
    once,
    body: { apiToken: options.apiToken },
    signal,
  }).catch((error) => {
    if (error instanceof HttpStatusError && (error.status === 401 || error.status === 403)) {
      throw new AuthError('TMS_AUTH_LOGIN_FAILED', `the API token was refused (${error.status})`, {
        target,
        status: error.status,
        body: error.body,
      });
    }
    throw error;
  });
  const item = assertValid(LoginResponse, body, 'the login answer', target).data.items[0]!;
  processSecrets.addRotating(item.access);
  return { access: item.access, expiresAtMs: Date.parse(item.expiresAt) };
}

function isUnauthorized(error: unknown): error is HttpStatusError {
  return error instanceof HttpStatusError && !(error instanceof AuthError) && error.status === 401;
}

function rethrowUnauthorized(error: unknown, target: RequestTarget, what: string): never {
  if (!isUnauthorized(error)) throw error;
  throw new AuthError('TMS_AUTH_REJECTED', `${what} was refused (401)`, {
    target,
    status: 401,
    body: error.body,
  });
}
