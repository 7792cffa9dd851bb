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
