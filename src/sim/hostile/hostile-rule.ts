import { type Static, Type } from '@sinclair/typebox';
import { createBodyChecker } from '../services/body-checker.js';

/** The hostile answers `PUT /_sim/hostile` can give (docs/simulator.md, "Hostile responses"). */
export const hostileModes = [
  'invalid-json',
  'wrong-types',
  'missing-data',
  'endless-empty',
  'repeat-cursor',
  'max-sequence-backwards',
  'oversized-page',
  'html-502',
  'cut-body',
  'stall-mid-body',
  'slow-drip',
  'endless-cursor',
  'deep-record',
] as const;
export type HostileMode = (typeof hostileModes)[number];

const HostileRequest = Type.Object({
  mode: Type.Union(hostileModes.map((mode) => Type.Literal(mode))),
  path: Type.Optional(Type.String({ pattern: '^/' })),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  afterPages: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
});

/** Which GET answers turn hostile: after `afterPages` answers under `path` pass, the next `count`. */
export interface HostileRule {
  readonly mode: HostileMode;
  /** Prefix of the request path (no query). @default '/' (every API GET) */
  readonly path: string;
  /** @default 1 */
  readonly count: number;
  /** @default 0 */
  readonly afterPages: number;
}

/** A rule in force and how far it got. */
export interface HostileStatus extends HostileRule {
  /** Answers that passed unharmed so far (at most `afterPages`). */
  passed: number;
  /** Hostile answers served so far (at most `count`). */
  served: number;
}

const checkRequest = createBodyChecker(HostileRequest);

/** Checks a `PUT /_sim/hostile` body (422 naming the field) and fills the defaults. */
export function parseHostileRule(body: unknown): HostileRule {
  const request: Static<typeof HostileRequest> = checkRequest(body);
  return {
    mode: request.mode as HostileMode,
    path: request.path ?? '/',
    count: request.count ?? 1,
    afterPages: request.afterPages ?? 0,
  };
}
