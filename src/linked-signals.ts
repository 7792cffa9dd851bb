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
 */

/** A signal that aborts with the first of its sources to abort, until `unlink` detaches it from them. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Aborts the linked signal itself (a deadline, a pass that ended). */
  abort(reason: unknown): void;
  unlink(): void;
}

/** The links each source aborts when it aborts; the entry goes with the source. */
const linksOf = new WeakMap<AbortSignal, Set<Link>>();

class Link implements LinkedSignal {
  readonly #controller = new AbortController();
  #first: Set<Link> | undefined;
  #second: Set<Link> | undefined;

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  // Fields, not methods: callers hand them on alone (a body's 'close' unlinks).
  readonly abort = (reason: unknown): void => {
    this.unlink();
    this.#controller.abort(reason);
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
