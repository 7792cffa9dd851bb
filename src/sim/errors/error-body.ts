import type { FastifyReply } from 'fastify';
import type { SimVariant } from '../sim-options.js';

/** One failure as the simulator describes it. */
export interface SimFailure {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details?: unknown;
}

/**
 * Sends a failure in the variant's error body: `json` `{"error": {status, code, message, details?}}`
 * (docs/simulator.md), `flat` `{"status", "message"}`, or `text` (text/plain).
 */
export function sendFailure(
  reply: FastifyReply,
  failure: SimFailure,
  variant: SimVariant['errorBody'],
): FastifyReply {
  reply.code(failure.status);
  if (variant === 'text')
    return reply
      .type('text/plain; charset=utf-8')
      .send(`${failure.status} ${failure.code}: ${failure.message}\n`);
  const body =
    variant === 'flat'
      ? { status: failure.status, message: failure.message }
      : {
          error: {
            status: failure.status,
            code: failure.code,
            message: failure.message,
            details: failure.details,
          },
        };
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}
