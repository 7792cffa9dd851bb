/**
 * An error the simulator answers with: thrown anywhere in a route, turned into the configured
 * error body shape (docs/simulator.md) by the server's one error handler.
 */
export class SimHttpError extends Error {
  override readonly name = 'SimHttpError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** Extra response headers, e.g. `retry-after` on a 429. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}
