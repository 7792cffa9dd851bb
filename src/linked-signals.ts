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
 * Why an EventEmitter whose AbortSignal is made only when read: most links are a request's
 * deadline, handed to undici alone, which takes an EventEmitter as a signal (its documented
 * `signal: AbortSignal | EventEmitter`). An AbortSignal is an EventTarget given another prototype:
 * ~1.4 KB a request, made and listened to, lived as long as the request and was moved to the old
 * generation with it (docs/performance-history.md, "Signals made when read").
 */

/** A signal that aborts with the first of its sources to abort, until `unlink` detaches it from them. */
export interface LinkedSignal {
  /** The link as an AbortSignal, made at its first read. */
  readonly signal: AbortSignal;
  /** The link as undici takes a signal (an EventEmitter with `aborted` and `reason`): nothing made. */
  readonly emitter: EventEmitter & { readonly aborted: boolean; readonly reason: unknown };
  /** Aborts the linked signal itself (a deadline, a pass that ended). */
  abort(reason: unknown): void;
  unlink(): void;
}

/** The links each source aborts when it aborts; the entry goes with the source. */
const linksOf = new WeakMap<AbortSignal, Set<Link>>();

class Link extends EventEmitter implements LinkedSignal {
  aborted = false;
  reason: unknown = undefined;
  #controller: AbortController | undefined;
  #first: Set<Link> | undefined;
  #second: Set<Link> | undefined;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  get emitter(): this {
    return this;
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
  follow(source: AbortSignal): boolean {
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

function listenTo(source: AbortSignal): Set<Link> {
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
export function linkSignals(first?: AbortSignal, second?: AbortSignal): LinkedSignal {
  const link = new Link();
  if (first === undefined || link.follow(first)) if (second !== undefined) link.follow(second);
  return link;
}
