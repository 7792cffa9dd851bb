import type { FastifyInstance } from 'fastify';
import type { Settings } from '../../config/settings.js';
import { SettingsError } from '../../config/settings-error.js';
import { enqueueStreams } from '../../jobs/enqueue-run.js';
import type { SyncQueue } from '../../jobs/sync-queue.js';
import { UnknownStreamError } from '../sync/sync-errors.js';
import { signatureHeader, verifySignature } from './webhook-signature.js';

export interface WebhookRouteOptions {
  readonly settings: Settings;
  readonly queue: SyncQueue;
  /** The shared secret of the HMAC signature. */
  readonly secret: string;
}

/**
 * `POST /webhooks/tms` with body `{"streams": ["invoices", ...]}` and header
 * `x-tms-signature: sha256=<hex HMAC-SHA256 of the raw body>`: enqueues a `webhook` run of every
 * partition of the named streams (202). A missing or wrong signature is 401, before the body is read as JSON.
 */
export async function webhookRoute(app: FastifyInstance, options: WebhookRouteOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_request, body, done) =>
    done(null, body),
  );
  app.post('/webhooks/tms', async (request, reply) => {
    const body = request.body as Buffer;
    if (!Buffer.isBuffer(body) || !verifySignature(options.secret, body, request.headers[signatureHeader])) {
      return reply.code(401).send({ error: 'bad or missing signature' });
    }
    const streams = streamsOf(body);
    if (!streams) return reply.code(400).send({ error: 'expected JSON {"streams": ["<stream>", ...]}' });
    try {
      const { runs } = await enqueueStreams(options.queue, options.settings, { streams, trigger: 'webhook' });
      return reply
        .code(202)
        .send({ enqueued: runs.map(({ data, jobId, state }) => ({ ...data, jobId, state })) });
    } catch (error) {
      if (error instanceof SettingsError || error instanceof UnknownStreamError) {
        return reply.code(400).send({ error: error.message });
      }
      throw error;
    }
  });
}

function streamsOf(body: Buffer): string[] | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { streams?: unknown };
    const streams = parsed.streams;
    const valid =
      Array.isArray(streams) && streams.length > 0 && streams.every((name) => typeof name === 'string');
    return valid ? (streams as string[]) : undefined;
  } catch {
    return undefined;
  }
}
