import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Sends the headers (with the full Content-Length) and the first half of `body`, then either drops
 * the connection (`cut`) or sends nothing more until the client gives up (`stall`).
 */
export function partialBody(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Buffer,
  ending: 'cut' | 'stall',
): PassThrough {
  reply.header('content-length', body.length);
  const stream = new PassThrough();
  stream.write(body.subarray(0, Math.floor(body.length / 2)));
  // A short delay lets the half body leave before the socket goes; a stall keeps it open until the client closes it.
  if (ending === 'cut') setTimeout(() => request.raw.socket?.destroy(), 20);
  reply.raw.once('close', () => stream.destroy());
  return stream;
}

/** How long the slow drip waits between two bytes: far under any body-silence timeout. */
export const dripIntervalMs = 250;

/** Sends the headers (with the full Content-Length), then `body` one byte every `dripIntervalMs`. */
export function drippedBody(reply: FastifyReply, body: Buffer): PassThrough {
  reply.header('content-length', body.length);
  const stream = new PassThrough();
  let sent = 0;
  const timer = setInterval(() => {
    stream.write(body.subarray(sent, sent + 1));
    sent += 1;
    if (sent >= body.length) {
      clearInterval(timer);
      stream.end();
    }
  }, dripIntervalMs);
  reply.raw.once('close', () => {
    clearInterval(timer);
    stream.destroy();
  });
  return stream;
}
