import type { StopSignal } from '../linked-signals.js';
import { HttpStatusError, PausedError, type RequestTarget, TmsError } from './client-errors.js';
import type { ResolvedClientOptions } from './client-options.js';
import { type ConcurrencyLimit, createConcurrencyLimit } from './concurrency-limit.js';
import { createLearnedAllowance, type LearnedAllowance } from './learned-allowance.js';
import { createOriginHealth, type OriginHealth, type OriginHealthView } from './origin-health.js';
import { createLocalBudget, type RequestBudget } from './request-budget.js';
import { requestsLeft } from './requests-left.js';

/** Counters since the client was created, and the limits as they stand. */
export interface ClientTraffic {
  /** API calls made (a call is sent once, or more when retried). */
  readonly requests: number;
  /** Sends, retries included. */
  readonly sends: number;
  /** Sends that repeated a request after a failure. */
  readonly retries: number;
  /** Sends answered 429. */
  readonly rateLimited: number;
  /** Sends in flight, and the adaptive limit on them (concurrency-limit.ts). */
  readonly inFlight: number;
  readonly limit: number;
  /** Time sends spent waiting on the request budget (rate and pauses), summed over sends. */
  readonly budgetWaitMs: number;
  /** Wall time every send of this client was held because a 429 asked to wait (Retry-After), overlaps counted once. */
  readonly pausedMs: number;
  readonly breaker: OriginHealthView['state'];
}

/** One send as the gate lets it through: what it is for, and when its request began. */
interface GatedSend {
  readonly target: RequestTarget;
  readonly signal: StopSignal | undefined;
  /** When the request's first send began (`performance.now()`): its ceiling counts from there. */
  readonly started: number;
  /** Whether a send of its request went out before (the next is then a retry); the gate sets it. */
  readonly request: { sentBefore: boolean };
}

/**
 * What every send of a client passes, in this order: the origin's breaker (origin-health.ts), the
 * request budget (its rate and the pauses a 429 asked for), and the concurrency limit; and what
 * the answer teaches each of them and the learned allowance (learned-allowance.ts), which is fed
 * here when nobody told the client its allowance and it shares no budget.
 */
export class SendGate {
  readonly #options: ResolvedClientOptions;
  readonly #learned: LearnedAllowance | undefined;
  readonly #budget: RequestBudget;
  readonly #limit: ConcurrencyLimit;
  readonly #health: OriginHealth;
  readonly #counts = { requests: 0, sends: 0, retries: 0, rateLimited: 0, budgetWaitMs: 0, pausedMs: 0 };
  #pausedUntil = 0;

  constructor(options: ResolvedClientOptions) {
    this.#options = options;
    // Told no allowance and sharing no budget: the process learns the TMS's from its 429s.
    this.#learned =
      options.budget === undefined && options.requestsPerSecond === 0 ? createLearnedAllowance() : undefined;
    this.#budget = options.budget ?? createLocalBudget(options.requestsPerSecond, undefined, this.#learned);
    this.#limit = createConcurrencyLimit({ initial: options.initialConcurrency, max: options.connections });
    this.#health = createOriginHealth({
      origin: options.origin,
      patienceMs: options.patienceMs,
      probeEveryMs: options.probeEveryMs,
      patienceSetting: options.patienceSetting,
      now: performance.now.bind(performance),
    });
  }

  /** Counts one API call (however many sends it takes). */
  request(): void {
    this.#counts.requests += 1;
  }

  /**
   * One send through the gate: `token` is read once the budget let it go (a wait for the
   * allowance may outlast a token), then `run` sends with it. A pause longer than the request may
   * still wait fails it at once (PausedError).
   */
  async send<R>(
    send: GatedSend,
    token: () => Promise<string | undefined>,
    run: (token: string | undefined) => Promise<R>,
  ): Promise<R> {
    const options = this.#options;
    this.#health.admit();
    const waitFrom = performance.now();
    const maxWaitMs = options.retry.maxTotalMs - (performance.now() - send.started);
    const pausedForMs = await this.#budget.take(send.signal, maxWaitMs);
    if (pausedForMs > 0)
      throw new PausedError(pausedForMs, {
        target: send.target,
        ceilingMs: options.retry.maxTotalMs,
        setting: options.ceilingSetting,
      });
    const sent = await token();
    const release = await this.#limit.acquire(send.signal);
    this.#counts.budgetWaitMs += performance.now() - waitFrom;
    this.#counts.sends += 1;
    if (send.request.sentBefore) this.#counts.retries += 1;
    send.request.sentBefore = true;
    try {
      const result = await run(sent);
      this.#health.answered();
      this.#learned?.accepted();
      // The slot went to a waiting send: its request leaves before this answer is handed
      // over, so the caller's work on the answer does not hold it back (requests-left.ts).
      if (release('ok')) await requestsLeft();
      return result;
    } catch (error) {
      const failed = error instanceof TmsError && error.originFailed;
      release(failed ? 'drop' : 'ok');
      await this.#learn(error, failed);
      throw error;
    }
  }

  /** What a failed send tells the breaker, the allowance and the budget. */
  async #learn(error: unknown, failed: boolean): Promise<void> {
    if (!(error instanceof TmsError)) return;
    // Any answer but a 429 or a 5xx counts as the origin answering, whatever the body.
    if (failed) this.#health.failed(error);
    else this.#health.answered();
    if (!(error instanceof HttpStatusError)) {
      if (failed) this.#learned?.failed();
      return;
    }
    if (error.code !== 'TMS_RATE_LIMITED') {
      if (failed) this.#learned?.failed();
      else this.#learned?.accepted();
      return;
    }
    this.#learned?.refused();
    this.#counts.rateLimited += 1;
    if (error.retryAfterMs !== undefined) await this.#pauseAsAsked(error.retryAfterMs);
  }

  /** Pauses the budget as a 429 asked, and counts the wall time it adds to the pauses before. */
  async #pauseAsAsked(ms: number): Promise<void> {
    const now = performance.now();
    const until = now + ms;
    if (until > this.#pausedUntil) {
      this.#counts.pausedMs += until - Math.max(now, this.#pausedUntil);
      this.#pausedUntil = until;
    }
    await this.#budget.pause(ms);
  }

  health(): OriginHealthView {
    return this.#health.view();
  }

  traffic(): ClientTraffic {
    return { ...this.#counts, ...this.#limit.view(), breaker: this.#health.view().state };
  }
}
