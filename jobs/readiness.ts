/** What the worker needs to do its job, each checked by `/readyz` (docs/worker.md, "Readiness"). */
export const readinessChecks = ['redis', 'store', 'tms', 'runs'] as const;
export type ReadinessCheck = (typeof readinessChecks)[number];

/** Whether the worker can do its job: each check `ok`, or why not (one line, no secret). */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: Readonly<Record<ReadinessCheck, string>>;
}

/** A check: undefined when all is well, else why not; a throw says why too. */
export type ReadinessProbe = (signal: AbortSignal) => Promise<string | undefined>;

/**
 * Runs every check at once, each within `timeoutMs` (a dependency that does not answer is not
 * ready either). Liveness (`/healthz`) asks less: that the process serves; readiness asks that it
 * can sync.
 */
export async function readReadiness(
  probes: Readonly<Record<ReadinessCheck, ReadinessProbe>>,
  timeoutMs = 2000,
): Promise<Readiness> {
  const results = await Promise.all(
    readinessChecks.map(async (check) => [check, (await within(probes[check], timeoutMs)) ?? 'ok'] as const),
  );
  const checks = Object.fromEntries(results) as Record<ReadinessCheck, string>;
  return { ready: results.every(([, result]) => result === 'ok'), checks };
}

/** Why the worker is not ready, one line per failing check (`tms: ...`). */
export function notReadyReasons(readiness: Readiness): string[] {
  return readinessChecks
    .filter((check) => readiness.checks[check] !== 'ok')
    .map((check) => `${check}: ${readiness.checks[check]}`);
}

/** The probe's answer, its error's message, or `no answer within N ms`. */
export async function within(probe: ReadinessProbe, timeoutMs: number): Promise<string | undefined> {
  const signal = AbortSignal.timeout(timeoutMs);
  const timeout = new Promise<string>((resolve) =>
    signal.addEventListener('abort', () => resolve(`no answer within ${timeoutMs} ms`), { once: true }),
  );
  try {
    return await Promise.race([probe(signal), timeout]);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
