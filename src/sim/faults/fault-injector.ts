import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveFaultRates } from '../fault-profiles.js';
import { SimHttpError } from '../sim-http-error.js';
import type { FaultProfileName, FaultRates } from '../sim-options.js';

type BodyFault = 'truncate' | 'stall' | 'lost-reset' | 'lost-502';

/** Injects the faults of docs/api.md, Errors into API requests; admin routes (`/_sim/`) never fault. */
export interface FaultInjector {
  rates(): FaultRates;
  /** Faults injected since start, by kind (`lostResponse` counts answers lost after the request was applied). */
  injected(): Readonly<Record<string, number>>;
  /** Switches the profile at run time; 422 on an unknown profile or a rate out of range. */
  set(faults: FaultProfileName | Partial<FaultRates>): FaultRates;
  install(app: FastifyInstance): void;
}

export function createFaultInjector(
  initial: FaultProfileName | Partial<FaultRates>,
  random: () => number,
): FaultInjector {
  let rates = resolved(initial);
  const bodyFaults = new WeakMap<FastifyRequest, BodyFault>();
  const injected: Record<string, number> = {};

  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith('/_sim/')) return;
    const current = rates;
    // No draw for the jitter when there is none: the seeded fault sequence stays what it was.
    const jitter = current.latencyJitterMs > 0 ? current.latencyJitterMs * random() : 0;
    const latency = current.latencyMs + jitter;
    if (latency > 0) await sleep(latency);
    const fault = draw(current, random(), request.method);
    if (fault) injected[fault] = (injected[fault] ?? 0) + 1;
    if (fault === 'reset') {
      request.raw.socket.destroy();
      reply.hijack();
    } else if (fault === 'rateLimited') {
      throw new SimHttpError(429, 'rate_limited', 'too many requests (injected)', undefined, {
        'retry-after': String(current.retryAfterSeconds),
      });
    } else if (fault === 'serverError') {
      return serverError(reply, random());
    } else if (fault === 'lostResponse') {
      bodyFaults.set(request, random() < 0.5 ? 'lost-reset' : 'lost-502');
    } else if (fault) {
      bodyFaults.set(request, fault);
    }
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (request.url.startsWith('/_sim/')) return payload;
    if (rates.answerLatencyMs > 0) await sleep(rates.answerLatencyMs);
    const fault = bodyFaults.get(request);
    // The handler has run (and committed whatever it changed): its answer is lost on the way back.
    if (fault === 'lost-reset' || fault === 'lost-502') return loseAnswer(request, reply, fault);
    if (!fault || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
    const body = Buffer.from(payload);
    reply.header('content-length', body.length);
    const stream = new PassThrough();
    stream.write(body.subarray(0, Math.floor(body.length / 2)));
    if (fault === 'truncate') {
      // Headers and half the body go out, then the connection drops: Content-Length promised more.
      setTimeout(() => request.raw.socket?.destroy(), 20);
    } else {
      const timer = setTimeout(() => stream.end(body.subarray(Math.floor(body.length / 2))), rates.stallMs);
      reply.raw.once('close', () => clearTimeout(timer));
    }
    return stream;
  };

  return {
    rates: () => rates,
    injected: () => ({ ...injected }),
    set(faults) {
      rates = resolved(faults);
      return rates;
    },
    install(app) {
      app.addHook('onRequest', onRequest);
      app.addHook('onSend', onSend);
    },
  };
}

function resolved(faults: unknown): FaultRates {
  const rates = resolveFaultRates(faults);
  if (typeof rates === 'string') throw new SimHttpError(422, 'validation_failed', `faults: ${rates}`);
  return rates;
}

type Fault = 'reset' | 'rateLimited' | 'serverError' | 'truncate' | 'stall' | 'lostResponse';

/** A lost answer is a fault of writes (the login included): a read that was applied changed nothing. */
function draw(rates: FaultRates, roll: number, method: string): Fault | undefined {
  let threshold = 0;
  // lostResponse last: with its rate 0 the seeded sequence of the other faults stays what it was.
  for (const fault of ['reset', 'rateLimited', 'serverError', 'truncate', 'stall', 'lostResponse'] as const) {
    threshold += rates[fault];
    if (roll < threshold)
      return fault === 'lostResponse' && (method === 'GET' || method === 'HEAD') ? undefined : fault;
  }
  return undefined;
}

/** A lost answer: the connection reset after the commit, or a proxy's 502 in place of the upstream's answer. */
function loseAnswer(request: FastifyRequest, reply: FastifyReply, fault: 'lost-reset' | 'lost-502'): string {
  if (fault === 'lost-reset') {
    request.raw.socket?.destroy();
    return '';
  }
  reply.code(502).type('text/html').removeHeader('content-length');
  return badGatewayPage('502 Bad Gateway');
}

function badGatewayPage(title: string): string {
  return `<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>\n`;
}

/** Half the injected 5xx are JSON (the error handler's body), half a proxy's HTML page. */
function serverError(reply: FastifyReply, roll: number): FastifyReply {
  const status = [500, 502, 503][Math.floor(roll * 6) % 3]!;
  if (roll < 0.5) throw new SimHttpError(status, 'server_error', 'internal server error (injected)');
  const title = status === 503 ? '503 Service Temporarily Unavailable' : '502 Bad Gateway';
  return reply
    .code(status === 503 ? 503 : 502)
    .type('text/html')
    .send(badGatewayPage(title));
}
