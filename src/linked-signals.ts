import { EventEmitter } from 'node:events';

/**
 * Why not AbortSignal.any: on Node 20 it keeps a weak reference to every signal it makes in each
 * of its sources, for as long as the source lives, even after the made signal is collected
 * (~60 bytes each, never pruned). A worker's stop signal lives as long as the process and is a
 * source of every run: a leak of a reference per run. It also costs ~10 µs a call.
 *
 * Why one listener per source, not one per link: a link lives as long as its request or run,
 * long enough for V8 to move what it allocated to the old generation, and an EventTarget listener
 * (its record, its options, the closure) was the largest share of what a 2,000-operator backfill
 * moved there and threw away (docs/performance-history.md, "Signals"). A source gets one listener,
 * at its first link, that aborts the links it holds then; a link is an entry in that set.
 *
 * Why an EventEmitter whose AbortSignal is made only when read: a link is a request's deadline,
 * handed to undici, which takes an EventEmitter as a signal (its documented
 * `signal: AbortSignal | EventEmitter`), or a run's or a job's signal, which the engine reads as a
 * `StopSignal`. An AbortSignal is an EventTarget given another prototype: ~1.4 KB, made and
 * listened to, lived as long as its request or run and was moved to the old generation with it
 * (docs/performance-history.md, "Signals made when read" and "A run's signal").
 */

/**
 * What the engine asks of a signal: whether and why it aborted, and to be told when it does. An
 * AbortSignal is one, and so is a link, which is not an AbortSignal: the part of the engine that
 * lives as long as a run or a request takes this, so that a run makes no AbortSignal.
 * p-retry and p-map ask no more of theirs (`forLibrary`).
 */
export interface StopSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A stop signal handed to p-retry or p-map, whose types say AbortSignal: both read `aborted`,
 * `reason` and `throwIfAborted`, and add and remove an `abort` listener (test/client/linked-signals.test.ts).
 */
export function forLibrary(signal: StopSignal | undefined): AbortSignal | undefined {
  return signal as AbortSignal | undefined;
}

/** A signal that aborts with the first of its sources to abort, until `unlink` detaches it from them. */
export interface LinkedSignal {
  /** The link as a stop signal (what a run and a request obey): nothing made. */
  readonly stop: StopSignal;
  /** The link as an AbortSignal, made at its first read: for an API that needs a real one. */
  readonly signal: AbortSignal;
  /** Aborts the linked signal itself (a deadline, a pass that ended). */
  abort(reason: unknown): void;
  unlink(): void;
}

/** The links each source aborts when it aborts; the entry goes with the source. */
const linksOf = new WeakMap<StopSignal, Set<Link>>();

class Link extends EventEmitter implements LinkedSignal, StopSignal {
  aborted = false;
  reason: unknown = undefined;
  #controller: AbortController | undefined;
  #first: Set<Link> | undefined;
  #second: Set<Link> | undefined;

  constructor() {
    super();
    // A run's link is listened to by each of its requests waiting for a slot (16 at once): not
    // the leak EventEmitter's warning at 11 listeners suspects.
    this.setMaxListeners(0);
  }

  get stop(): this {
    return this;
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(_type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void {
    if (options?.once) this.once('abort', listener);
    else this.on('abort', listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.removeListener('abort', listener);
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  // Fields, not methods: callers hand them on alone (a body's 'close' unlinks).
  readonly abort = (reason: unknown): void => {
    this.unlink();
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    this.emit('abort');
  };

  readonly unlink = (): void => {
    this.#first?.delete(this);
    this.#second?.delete(this);
    this.#first = this.#second = undefined;
  };

  /** Follows `source` from now on: aborted already, aborts at once. False once this link is aborted. */
  follow(source: StopSignal): boolean {
    if (source.aborted) {
      this.abort(source.reason);
      return false;
    }
    const links = linksOf.get(source) ?? listenTo(source);
    links.add(this);
    if (this.#first === undefined) this.#first = links;
    else this.#second = links;
    return true;
  }
}

function listenTo(source: StopSignal): Set<Link> {
  const links = new Set<Link>();
  linksOf.set(source, links);
  source.addEventListener(
    'abort',
    () => {
      for (const link of links) link.abort(source.reason);
      links.clear();
    },
    { once: true },
  );
  return links;
}

/**
 * Links a signal to at most two sources, for one piece of work that calls `unlink` when it ends (a
 * request, a partition's run, a job): a source aborted already aborts it at once. In place of
 * AbortSignal.any everywhere (see above; three per request were 7% of the child streams' CPU).
 */
export function linkSignals(first?: StopSignal, second?: StopSignal): LinkedSignal {
  const link = new Link();
  if (first === undefined || link.follow(first)) if (second !== undefined) link.follow(second);
  return link;
}
