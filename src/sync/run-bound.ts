import type { SyncSettings } from '../../config/settings.js';
import { type LinkedSignal, linkSignals, type StopSignal } from '../linked-signals.js';
import { RunBoundError } from './sync-errors.js';

/** The bound of one partition run (`sync.maxRunPages`, `sync.maxRunSeconds`). */
export interface RunBound {
  /**
   * The run's one signal: aborted with the stop signal's reason when asked to stop, or with a
   * RunBoundError once the run passed a bound; the run stops after the page in hand.
   */
  readonly signal: StopSignal;
  /** The RunBoundError when the run passed a bound (not when it was asked to stop). */
  readonly exceeded: RunBoundError | undefined;
  /** Told the run's committed pages after every commit. */
  committed(pages: number): void;
  /** Ends the clock and lets go of the stop signal; call when the run ends. */
  end(): void;
}

/**
 * Bounds a run by pages and time, as an AbortSignal the run already obeys between requests and
 * pages (a stop loses at most the uncommitted page), so a hostile listing can never hold it forever.
 * The same signal follows `stop`: a run holds one signal, not one per cause.
 */
export function startRunBound(
  origin: { readonly stream: string; readonly partition: string },
  settings: Pick<SyncSettings, 'maxRunPages' | 'maxRunSeconds'>,
  stop?: StopSignal,
): RunBound {
  const bound = new Bound(origin, settings, linkSignals(stop));
  clock.add(bound);
  return bound;
}

class Bound implements RunBound {
  exceeded: RunBoundError | undefined;
  readonly deadline: number;
  readonly #origin: { readonly stream: string; readonly partition: string };
  readonly #settings: Pick<SyncSettings, 'maxRunPages' | 'maxRunSeconds'>;
  readonly #linked: LinkedSignal;

  constructor(
    origin: { readonly stream: string; readonly partition: string },
    settings: Pick<SyncSettings, 'maxRunPages' | 'maxRunSeconds'>,
    linked: LinkedSignal,
  ) {
    this.#origin = origin;
    this.#settings = settings;
    this.#linked = linked;
    this.deadline = performance.now() + settings.maxRunSeconds * 1000;
  }

  get signal(): StopSignal {
    return this.#linked.stop;
  }

  committed(pages: number): void {
    const { maxRunPages } = this.#settings;
    if (pages >= maxRunPages) this.passed(`${maxRunPages} pages`, 'sync.maxRunPages');
  }

  passed(what: string, setting: string): void {
    if (this.#linked.stop.aborted) return;
    this.exceeded = new RunBoundError(this.#origin, { what, setting });
    this.#linked.abort(this.exceeded);
  }

  passedTime(): void {
    this.passed(`${this.#settings.maxRunSeconds} s`, 'sync.maxRunSeconds');
  }

  end(): void {
    clock.delete(this);
    this.#linked.unlink();
  }
}

/**
 * The clock of every run's time bound in the process: one timer, not one per run. A run's timer
 * lived as long as the run, long enough to be moved to V8's old generation with its closure, and a
 * 2,000-operator backfill ends 20,000 runs (docs/performance-history.md, "one clock"). The bound
 * is whole seconds (`sync.maxRunSeconds`), so a run passes it by at most `tickMs` more.
 */
const clock = {
  runs: new Set<Bound>(),
  timer: undefined as NodeJS.Timeout | undefined,
  add(bound: Bound): void {
    this.runs.add(bound);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), tickMs);
      this.timer.unref();
    }
  },
  delete(bound: Bound): void {
    this.runs.delete(bound);
    if (this.runs.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  },
  tick(): void {
    const now = performance.now();
    for (const bound of this.runs) {
      if (bound.deadline > now) continue;
      this.delete(bound);
      bound.passedTime();
    }
  },
};

/** How often the clock looks at the runs' deadlines. */
const tickMs = 250;
