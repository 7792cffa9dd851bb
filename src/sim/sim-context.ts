import type { FastifyRequest } from 'fastify';
import type { SimOptions } from './sim-options.js';

/** Who called a Driver API route, once the token and `operatorId` rules of docs/api.md, Authentication are checked. */
export interface DriverCaller {
  readonly tokenType: 'apitoken' | 'driver';
  /** The operator the call acts for: the `operatorId` query parameter or the token's operator claim. */
  readonly operatorId: string;
}

/**
 * What the simulator's core hands to the parts that register routes (the Driver API): the resolved
 * options, a clock, the seeded random source and the auth check. Errors are thrown as SimHttpError.
 */
export interface SimContext {
  readonly options: SimOptions;
  /** Milliseconds since the epoch, from the simulator's clock. */
  now(): number;
  /** Deterministic random number in [0, 1), seeded from `options.seed`. */
  random(): number;
  /**
   * Checks the bearer token of a Driver API request (driver JWT or access token of type apitoken,
   * audience external or driver) and resolves the operator; throws SimHttpError 401, 403 or 400.
   * `requireOperator: false` for the operations that take no `operatorId`.
   */
  authenticateDriver(request: FastifyRequest, requireOperator: boolean): DriverCaller;
}
