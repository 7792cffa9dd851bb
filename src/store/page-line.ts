import type { StopSignal } from '../linked-signals.js';
import type { PageOrder } from './write-page.js';

/**
 * Pages a run holds given but not yet committed when `commitPage` returns. With one, this thread
 * waited on every commit the database was slower with (the TMS and the other thread share the
 * cores): two kept the whole process 5% faster, three another 2-3% (docs/performance-history.md,
 * "2026-11-24 (received text)" and "(pages in flight)"); four no more. A crash loses at most these
 * pages and the one being prepared.
 */
const pagesInFlight = 3;

/** Numbers every page of the process's runs (`WritePageInput.order`). */
let pageNumbers = 0;

/** A page's write as the line sends it: it begins once `after` settles, in the place `order` gives. */
type PageWrite = (after: Promise<void>, order: PageOrder) => Promise<void>;

/**
 * The pages of one run, committed in the order given, each write sent while the ones before are
 * still being written; the first failure stops every page after it.
 */
export class PageLine {
  #last: Promise<unknown> = Promise.resolve();
  #lastPage: number | undefined;
  #handed = 0;
  readonly #uncommitted: Promise<unknown>[] = [];
  #failure: { error: unknown } | undefined;
  readonly #maxPages: number;
  readonly #signal: StopSignal | undefined;

  constructor(options: {
    readonly maxPages?: number | undefined;
    readonly signal?: StopSignal | undefined;
  }) {
    this.#maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
    this.#signal = options.signal;
  }

  /**
   * Hands on one page; returns once the page `pagesInFlight` before it committed. A page past
   * `maxPages` is refused once the pages before committed (sync/run-bound.ts aborts the run then).
   */
  async hand(write: PageWrite): Promise<void> {
    this.#stopIfAborted();
    this.#check();
    if (this.#handed >= this.#maxPages) {
      await this.settled();
      this.#stopIfAborted();
      throw new Error(`the run committed the ${this.#maxPages} pages it may commit`);
    }
    this.#handed += 1;
    const after = this.#last.then(() => this.#stopIfAborted());
    after.catch(() => undefined);
    const order = { page: ++pageNumbers, after: this.#lastPage };
    this.#lastPage = order.page;
    const last = write(after, order);
    last.catch((error: unknown) => {
      this.#failure ??= { error };
    });
    this.#last = last;
    this.#uncommitted.push(last);
    if (this.#uncommitted.length > pagesInFlight) await this.#uncommitted.shift()!.catch(() => undefined);
    this.#check();
  }

  /** Waits for every page handed on to commit; throws the first failure (pages after it never begin). */
  async settled(): Promise<void> {
    await this.#last.catch(() => undefined);
    this.#check();
  }

  #check(): void {
    if (this.#failure) throw this.#failure.error;
  }

  #stopIfAborted(): void {
    this.#signal?.throwIfAborted();
  }
}
