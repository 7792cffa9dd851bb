import type { FastifyInstance } from 'fastify';
import type { Settings } from '../../config/settings.js';
import { SettingsError } from '../../config/settings-error.js';
import { enqueueStreams } from '../../jobs/enqueue-run.js';
import type { SyncQueue } from '../../jobs/sync-queue.js';
import { UnknownStreamError } from '../sync/sync-errors.js';
import { signatureHeader, type VerifyOptions, verifySignature } from './webhook-signature.js';

export interface WebhookRouteOptions {
  readonly settings: Settings;
  readonly queue: SyncQueue;
  /** The shared secret of the HMAC signature. */
  readonly secret: string;
  /** The signature's timestamp check (webhook-signature.ts). @default 300 s, the real clock */
  readonly verify?: VerifyOptions;
}

/** What a webhook asks: streams or partitions (`tasks/1001`), and the run's mode. */
interface WebhookRequest {
  readonly streams: string[];
  readonly full: boolean;
  readonly reconcile: boolean;
}

const usage =
  'expected JSON {"streams": ["<stream or partition>", ...], "full"?: boolean, "reconcile"?: boolean} and nothing else';

/**
 * `POST /webhooks/tms` with body `{"streams": ["invoices", ...], "full"?: true, "reconcile"?: true}`
 * and header `x-tms-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`:
 * enqueues a `webhook` run of every partition named, in that mode (202). A missing, wrong,
 * old-form or stale signature is 401 with the reason, before the body is read as JSON; a body
 * with any other key or type is 400 (never silently ignored).
 */
export async function webhookRoute(app: FastifyInstance, options: WebhookRouteOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_request, body, done) =>
    done(null, body),
  );
  app.post('/webhooks/tms', async (request, reply) => {
    const body = request.body as Buffer;
    if (!Buffer.isBuffer(body)) return reply.code(401).send({ error: 'bad or missing signature' });
    const check = verifySignature(options.secret, body, request.headers[signatureHeader], options.verify);
    if (!check.valid) return reply.code(401).send({ error: check.reason });
    const asked = requestOf(body);
    if (!asked) return reply.code(400).send({ error: usage });
    try {
      const { runs } = await enqueueStreams(options.queue, options.settings, {
        ...asked,
        trigger: 'webhook',
      });
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

function requestOf(body: Buffer): WebhookRequest | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const { streams, full = false, reconcile = false, ...rest } = parsed as Record<string, unknown>;
  const valid =
    Object.keys(rest).length === 0 &&
    Array.isArray(streams) &&
    streams.length > 0 &&
    streams.every((name) => typeof name === 'string') &&
    typeof full === 'boolean' &&
    typeof reconcile === 'boolean';
  return valid ? { streams: streams as string[], full, reconcile } : undefined;
}
