import type { SyncSettings } from '../../config/settings.js';
import { RunBoundError } from './sync-errors.js';

/** The bound of one partition run (`sync.maxRunPages`, `sync.maxRunSeconds`). */
export interface RunBound {
  /** Aborted with a RunBoundError once the run passed a bound; the run stops after the page in hand. */
  readonly signal: AbortSignal;
  /** Told the run's committed pages after every commit. */
  committed(pages: number): void;
  /** Ends the clock; call when the run ends. */
  end(): void;
}

/**
 * Bounds a run by pages and time, as an AbortSignal the run already obeys between requests and
 * pages (a stop loses at most the uncommitted page), so a hostile listing can never hold it forever.
 */
export function startRunBound(
  origin: { readonly stream: string; readonly partition: string },
  settings: Pick<SyncSettings, 'maxRunPages' | 'maxRunSeconds'>,
): RunBound {
  const bound = new AbortController();
  const stop = (what: string, setting: string) => {
    if (!bound.signal.aborted) bound.abort(new RunBoundError(origin, { what, setting }));
  };
  const seconds = settings.maxRunSeconds;
  const timer = setTimeout(() => stop(`${seconds} s`, 'sync.maxRunSeconds'), seconds * 1000);
  timer.unref();
  return {
    signal: bound.signal,
    committed(pages) {
      if (pages >= settings.maxRunPages) stop(`${settings.maxRunPages} pages`, 'sync.maxRunPages');
    },
    end: () => clearTimeout(timer),
  };
}
