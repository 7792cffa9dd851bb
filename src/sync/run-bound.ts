import type { SyncSettings } from '../../config/settings.js';
import { linkSignals, type StopSignal } from '../linked-signals.js';
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
  const linked = linkSignals(stop);
  let exceeded: RunBoundError | undefined;
  const passed = (what: string, setting: string) => {
    if (linked.stop.aborted) return;
    exceeded = new RunBoundError(origin, { what, setting });
    linked.abort(exceeded);
  };
  const seconds = settings.maxRunSeconds;
  const timer = setTimeout(() => passed(`${seconds} s`, 'sync.maxRunSeconds'), seconds * 1000);
  timer.unref();
  return {
    signal: linked.stop,
    get exceeded() {
      return exceeded;
    },
    committed(pages) {
      if (pages >= settings.maxRunPages) passed(`${settings.maxRunPages} pages`, 'sync.maxRunPages');
    },
    end() {
      clearTimeout(timer);
      linked.unlink();
    },
  };
}
