import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { StopSignal } from '../linked-signals.js';
import { errorBodyLimit } from './read-body.js';

/** An answer whose body was gathered in memory: the whole of a success, the start of an error. */
export interface GatheredResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** The errors a gathered send fails with, made for its target: one pair per transport, not per send. */
export interface GatherErrors<T> {
  readonly tooLarge: (target: T) => Error;
  readonly timedOut: (target: T) => Error;
}

/** What bounds a gathered send. */
export interface GatherLimits<T> {
  /** What the send is, as its errors name it. */
  readonly target: T;
  readonly errors: GatherErrors<T>;
  /** A success body beyond this many bytes, declared or counted, fails with `errors.tooLarge`. */
  readonly maxBytes: number;
  /** The send's deadline from its dispatch to its body's end; past it, it fails with `errors.timedOut`. */
  readonly totalMs: number;
  /** The caller's: stops the send, queued or under way, with its reason. */
  readonly signal: StopSignal | undefined;
}

/**
 * Sends one request through undici's `dispatch` and gathers its body as it arrives. undici's
 * `request()` hands a body over as a stream, and reading a stream costs several promises and
 * objects per answer; an idle cycle sends ~10,000 small requests, and that cost was a tenth of
 * its CPU (docs/performance-history.md, "dispatched sends"). Of an error body only the first
 * `errorBodyLimit` bytes are kept; the rest is not read. The send's deadline and the caller's
 * signal are watched here, by a timer and a listener, not through a linked signal per send.
 */
export function sendGathered<T>(
  dispatcher: Dispatcher,
  request: Dispatcher.DispatchOptions,
  limits: GatherLimits<T>,
): Promise<GatheredResponse> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(request, new Gathering(limits, resolve, reject));
  });
}

/** Why an error body's reading stopped early: enough of it was read. */
const enoughRead = new Error('enough of the error body was read');

class Gathering<T> implements Dispatcher.DispatchHandler {
  readonly #limits: GatherLimits<T>;
  readonly #resolve: (response: GatheredResponse) => void;
  readonly #reject: (error: unknown) => void;
  readonly #timer: NodeJS.Timeout;
  #controller: Dispatcher.DispatchController | undefined;
  #stopped: unknown;
  #settled = false;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(
    limits: GatherLimits<T>,
    resolve: (response: GatheredResponse) => void,
    reject: (error: unknown) => void,
  ) {
    this.#limits = limits;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#timer = setTimeout(this.#onTimeout, limits.totalMs);
    const { signal } = limits;
    if (signal?.aborted) this.#stop(signal.reason);
    else signal?.addEventListener('abort', this.#onAbort);
  }

  readonly #onAbort = () => this.#stop(this.#limits.signal?.reason);
  readonly #onTimeout = () => this.#stop(this.#limits.errors.timedOut(this.#limits.target));

  /** A stop before the request reaches a connection fails it now; undici drops it when it gets one. */
  #stop(reason: unknown): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = reason;
    if (this.#controller) this.#controller.abort(reason as Error);
    else this.#fail(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#stopped !== undefined) controller.abort(this.#stopped as Error);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
  ): void {
    if (status < 200) return;
    this.#status = status;
    this.#headers = headers;
    const declared = headers['content-length'];
    if (this.#succeeded() && declared !== undefined && Number(declared) > this.#limits.maxBytes)
      controller.abort(this.#tooLarge());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    this.#chunks.push(chunk);
    if (this.#succeeded()) {
      if (this.#size > this.#limits.maxBytes) controller.abort(this.#tooLarge());
    } else if (this.#size >= errorBodyLimit) controller.abort(enoughRead);
  }

  onResponseEnd(): void {
    this.#answer();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (error === enoughRead) this.#answer();
    else this.#fail(error);
  }

  #tooLarge(): Error {
    return this.#limits.errors.tooLarge(this.#limits.target);
  }

  #succeeded(): boolean {
    return this.#status >= 200 && this.#status < 300;
  }

  #answer(): void {
    if (this.#settle()) {
      // Copied even when one chunk: a chunk is a view of the socket's read, which it would keep.
      const body = Buffer.concat(this.#chunks, this.#size);
      this.#resolve({ status: this.#status, headers: this.#headers, body });
    }
  }

  #fail(error: unknown): void {
    if (this.#settle()) this.#reject(error);
  }

  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#limits.signal?.removeEventListener('abort', this.#onAbort);
    return true;
  }
}
