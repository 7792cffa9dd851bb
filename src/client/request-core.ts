import { Readable } from 'node:stream';
import { linkSignals, type StopSignal } from '../linked-signals.js';
import type { ApiRequest } from './api-request.js';
import type { RequestTarget } from './client-errors.js';
import type { ResolvedClientOptions } from './client-options.js';
import type { HttpRequest, HttpResponse, HttpTransport } from './http-transport.js';
import type { OriginHealthView } from './origin-health.js';
import { cancelBody, type ReceivedJson } from './read-body.js';
import { logIn, RequestAuth } from './request-auth.js';
import { withRetry } from './retry-policy.js';
import { type ClientTraffic, SendGate } from './send-gate.js';
import { toHttpRequest } from './to-http-request.js';

/** Auth, rate limit and the retry policy around the transport; every typed method goes through it. */
export interface RequestCore {
  /** The parsed JSON answer (`undefined` when the body is empty). */
  json(request: ApiRequest): Promise<unknown>;
  /** The JSON answer, parsed and as the text it was parsed from. */
  received(request: ApiRequest): Promise<ReceivedJson>;
  /** The answer's body as received, not parsed (an empty body is zero bytes). */
  bytes(request: ApiRequest): Promise<Buffer>;
  /** Hands the answer's body to `consume`; the body is destroyed afterwards whatever happens. */
  stream<T>(request: ApiRequest, consume: (response: HttpResponse<Readable>) => Promise<T>): Promise<T>;
  /** The first login, sent once, until one succeeded (auth-session.ts `check`); throws its error as it is. */
  checkLogin(signal?: StopSignal): Promise<void>;
  /** The origin's circuit breaker as it stands. */
  health(): OriginHealthView;
  /** What the client sent so far and how it is limited now. */
  traffic(): ClientTraffic;
}

/**
 * A request's way out, in layers: its auth (request-auth.ts) around the retry policy
 * (retry-policy.ts) around each send, which passes the gate (send-gate.ts: breaker, budget,
 * concurrency) and goes out as an HTTP request (to-http-request.ts).
 */
export function createRequestCore(transport: HttpTransport, options: ResolvedClientOptions): RequestCore {
  const gate = new SendGate(options);
  const auth = new RequestAuth(options, (signal, once) =>
    logIn(
      (request) => send(request, (http) => transport.sendJson(http)).then((r) => r.body.value),
      options,
      signal,
      once,
    ),
  );

  function send<R>(request: ApiRequest, run: (http: HttpRequest) => Promise<R>): Promise<R> {
    return underSignals(options, request, (signal) => sendUnder(request, signal, run));
  }

  function sendUnder<R>(
    request: ApiRequest,
    signal: StopSignal | undefined,
    run: (http: HttpRequest) => Promise<R>,
  ): Promise<R> {
    gate.request();
    const target: RequestTarget = { method: request.method, path: request.path };
    const repeatable = !(request.body instanceof Readable);
    const started = performance.now();
    const sent = { target, signal, started, request: { sentBefore: false } };
    const policy =
      repeatable && !request.once ? options : { ...options, retry: { ...options.retry, attempts: 1 } };
    // The token is read at every send, not once per request: a request retried for longer than a
    // token lives (Retry-After, back-off) sends the session's current token, renewed before expiry.
    const attempt = (tokenFor: () => Promise<string | undefined>) =>
      withRetry(
        () => gate.send(sent, tokenFor, (token) => run(toHttpRequest(request, token, signal))),
        { target, idempotent: request.idempotent ?? request.method !== 'POST', signal },
        policy,
      );
    return auth.around(request, target, signal, repeatable, attempt);
  }

  return {
    checkLogin: (signal) => auth.check(signal),
    health: () => gate.health(),
    traffic: () => gate.traffic(),
    json: (request) =>
      send(request, (http) => transport.sendJson(http)).then((response) => response.body.value),
    received: (request) =>
      send(request, (http) => transport.sendJson(http)).then((response) => response.body),
    bytes: (request) => send(request, (http) => transport.sendBytes(http)).then((response) => response.body),
    // The body is read under the request's signals too: they stay linked until `consume` ends.
    stream: (request, consume) =>
      underSignals(options, request, async (signal) => {
        const response = await sendUnder(request, signal, (http) => transport.sendStream(http));
        try {
          return await consume(response);
        } finally {
          cancelBody(response.body);
        }
      }),
  };
}

/** Runs `work` under the client's signal and the request's, whichever aborts first. */
async function underSignals<R>(
  options: ResolvedClientOptions,
  request: ApiRequest,
  work: (signal?: StopSignal) => Promise<R>,
): Promise<R> {
  if (!options.signal || !request.signal) return work(options.signal ?? request.signal);
  const linked = linkSignals(options.signal, request.signal);
  try {
    return await work(linked.stop);
  } finally {
    linked.unlink();
  }
}
