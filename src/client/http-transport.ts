import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Pool } from 'undici';
import { forLibrary, linkSignals, type StopSignal } from '../linked-signals.js';
import {
  AuthError,
  HttpStatusError,
  NetworkError,
  type RequestTarget,
  ResponseTooLargeError,
  TimeoutError,
  TmsError,
} from './client-errors.js';
import type { ResolvedClientOptions } from './client-options.js';
import { type GatherErrors, sendGathered } from './gathered-send.js';
import {
  errorBodyOf,
  parseJsonBody,
  type ReceivedJson,
  readErrorBody,
  summarizeErrorBody,
} from './read-body.js';
import { parseRetryAfter } from './retry-policy.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One send: the API path (relative to baseUrl, no query), its query string and headers. */
export interface HttpRequest extends RequestTarget {
  readonly method: HttpMethod;
  /** Serialized query without `?`; '' when none. Never logged or put in errors. */
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer | Readable | undefined;
  /** The caller's: a send stops when it aborts (its deadline, `timeouts.totalMs`, is the transport's). */
  readonly signal?: StopSignal | undefined;
}

/** A send's signal: its deadline, linked to the caller's (linked-signals.ts). */
type SendSignal = StopSignal;

export interface HttpResponse<B> {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: B;
}

/** Sends one request (no retry, no auth) over the origin's keep-alive Pool; non-2xx throws. */
export interface HttpTransport {
  /** The JSON body, parsed and as text, read within maxBodyBytes. */
  sendJson(request: HttpRequest): Promise<HttpResponse<ReceivedJson>>;
  /** The body as received, read within maxBodyBytes, not parsed. */
  sendBytes(request: HttpRequest): Promise<HttpResponse<Buffer>>;
  /** The body as a stream: the caller must consume or destroy it. */
  sendStream(request: HttpRequest): Promise<HttpResponse<Readable>>;
  close(): Promise<void>;
}

export function createHttpTransport(options: ResolvedClientOptions): HttpTransport {
  // undici is loaded here, not where this module is: the commands that only read the store
  // (`status`, `runs`) share this module's chunk and never send a request, and evaluating undici
  // was a tenth of `status`'s start. Loading starts now, beside the store's opening.
  const opening = import('undici').then(
    ({ Pool }) =>
      new Pool(options.origin, {
        connections: options.connections,
        connect: { timeout: options.timeouts.connectMs },
        headersTimeout: options.timeouts.headersMs,
        bodyTimeout: options.timeouts.bodyMs,
      }),
  );
  opening.catch(() => undefined);
  let opened: Pool | undefined;

  const pathOf = (request: HttpRequest) =>
    `${options.basePath}${request.path}${request.query ? `?${request.query}` : ''}`;

  function logged(request: HttpRequest, status: number, started: number): void {
    options.logger.debug(
      { method: request.method, path: request.path, status, ms: Math.round(performance.now() - started) },
      'TMS response',
    );
  }

  async function open(request: HttpRequest, signal: SendSignal): Promise<HttpResponse<Readable>> {
    const started = performance.now();
    opened ??= await opening;
    const response = await opened.request({
      method: request.method,
      path: pathOf(request),
      headers: request.headers,
      body: request.body ?? null,
      signal: forLibrary(signal),
    });
    logged(request, response.statusCode, started);
    if (response.statusCode >= 200 && response.statusCode < 300) {
      return { status: response.statusCode, headers: response.headers, body: response.body };
    }
    const body = await readErrorBody(response.body);
    throw statusError(request, response.statusCode, response.headers, body, options.now());
  }

  /**
   * A send whose body is handed on as a stream, under its deadline (`timeouts.totalMs`, until the
   * answer's headers) and the caller's signal, linked to undici's until that body closes: the
   * caller's abort still stops its reading.
   */
  async function streamed(request: HttpRequest): Promise<HttpResponse<Readable>> {
    const deadline = linkSignals(request.signal);
    const timer = setTimeout(() => deadline.abort(timedOut(request)), options.timeouts.totalMs);
    let linkedToBody = false;
    try {
      const response = await open(request, deadline.stop);
      if (!response.body.destroyed) {
        response.body.once('close', deadline.unlink);
        linkedToBody = true;
      }
      return response;
    } catch (error) {
      throw mapTransportError(error, request, deadline.stop);
    } finally {
      clearTimeout(timer);
      if (!linkedToBody) deadline.unlink();
    }
  }

  /** A send whose body is gathered in memory (gathered-send.ts), under its deadline and the caller's signal. */
  async function received(request: HttpRequest): Promise<HttpResponse<Buffer>> {
    const started = performance.now();
    try {
      opened ??= await opening;
      const response = await sendGathered(
        opened,
        {
          method: request.method,
          path: pathOf(request),
          headers: request.headers,
          body: request.body ?? null,
        },
        {
          target: request,
          errors: gatherErrors,
          maxBytes: options.maxBodyBytes,
          totalMs: options.timeouts.totalMs,
          signal: request.signal,
        },
      );
      logged(request, response.status, started);
      if (response.status >= 200 && response.status < 300) return response;
      const body = errorBodyOf(response.body);
      throw statusError(request, response.status, response.headers, body, options.now());
    } catch (error) {
      throw mapTransportError(error, request);
    }
  }

  function timedOut(target: RequestTarget): TimeoutError {
    const limit = { ms: options.timeouts.totalMs, setting: options.timeoutSetting };
    return new TimeoutError('total', { target, limit });
  }

  const gatherErrors: GatherErrors<RequestTarget> = {
    tooLarge: (target) =>
      new ResponseTooLargeError(`response body exceeds maxBodyBytes (${options.maxBodyBytes} bytes)`, {
        target,
      }),
    timedOut,
  };

  return {
    sendJson: async (request) => {
      const response = await received(request);
      return { ...response, body: parseJsonBody(response.body, request) };
    },
    sendBytes: received,
    sendStream: streamed,
    // A pool never made (undici failed to load: the requests said so) has nothing to close.
    close: async () => (await opening.catch(() => undefined))?.close(),
  };
}

function statusError(
  target: RequestTarget,
  status: number,
  headers: IncomingHttpHeaders,
  body: unknown,
  now: number,
): HttpStatusError {
  const summary = summarizeErrorBody(body);
  const message = `the server answered ${status}${summary ? `: ${summary}` : ''}`;
  if (status === 403)
    return new AuthError('TMS_AUTH_FORBIDDEN', `${message} (token lacks a permission or scope)`, {
      target,
      status,
      body,
    });
  const retryAfter = headers['retry-after'];
  const retryAfterMs = parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, now);
  return new HttpStatusError(message, {
    target,
    status,
    body,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/** Failures that prove the request never left this machine: repeating even a create is safe. */
const notSentCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
]);
/** Failures after the request may have been sent. */
const maybeSentCodes = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);
const timeoutPhases = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
} as const;

/**
 * Turns undici and socket errors into the catalogue; the caller's abort reason, the deadline's
 * TimeoutError and our own errors pass through.
 */
function mapTransportError(error: unknown, request: HttpRequest, deadline?: SendSignal): unknown {
  if (request.signal?.aborted) return request.signal.reason;
  if (deadline?.aborted) return deadline.reason;
  if (error instanceof TmsError) return error;
  const code = errorCode(error);
  if (code === undefined) return error;
  const details = { target: request, cause: error, causeCode: code };
  if (code in timeoutPhases)
    return new TimeoutError(timeoutPhases[code as keyof typeof timeoutPhases], details);
  if (notSentCodes.has(code)) {
    return new NetworkError(`could not reach the server (${code})`, {
      ...details,
      mayHaveReachedServer: false,
    });
  }
  if (maybeSentCodes.has(code) || code.startsWith('HPE_')) {
    return new NetworkError(`the connection failed (${code})`, { ...details, mayHaveReachedServer: true });
  }
  return error;
}

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 3; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
