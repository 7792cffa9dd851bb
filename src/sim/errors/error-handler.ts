import type { FastifyError, FastifyInstance } from 'fastify';
import { SimHttpError } from '../sim-http-error.js';
import type { SimVariant } from '../sim-options.js';
import { type SimFailure, sendFailure } from './error-body.js';

/**
 * The one place errors become answers: SimHttpError as thrown, fastify's own client errors (bad
 * JSON, wrong media type, body too large) as 400-class `malformed_request`, unknown routes as 404,
 * anything else as 500.
 */
export function installErrorHandler(app: FastifyInstance, variant: SimVariant['errorBody']): void {
  app.setErrorHandler((error, _request, reply) => {
    const failure = toFailure(error);
    for (const [name, value] of Object.entries(error instanceof SimHttpError ? error.headers : {}))
      reply.header(name, value);
    if (failure.status >= 500) app.log.error({ err: error }, 'simulator error');
    return sendFailure(reply, failure, variant);
  });
  app.setNotFoundHandler((request, reply) =>
    sendFailure(
      reply,
      {
        status: 404,
        code: 'route_not_found',
        message: `no route ${request.method} ${request.url.split('?')[0]}`,
      },
      variant,
    ),
  );
}

function toFailure(error: unknown): SimFailure {
  if (error instanceof SimHttpError) {
    return { status: error.status, code: error.code, message: error.message, details: error.details };
  }
  const status = (error as FastifyError).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, code: 'malformed_request', message: (error as Error).message };
  }
  return { status: 500, code: 'internal_error', message: 'the simulator failed; see its log' };
}
