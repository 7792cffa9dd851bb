import type { Readable } from 'node:stream';
import { redactSecrets } from '../secrets/secret-registry.js';
import { type RequestTarget, ResponseValidationError } from './client-errors.js';

/** Error bodies are reports, not data: only this much of one is kept. */
export const errorBodyLimit = 4096;
const errorTextLimit = 1000;

/** Stops a body that will not be read: undici then reports an abort, which nobody needs to hear. */
export function cancelBody(body: Readable): void {
  if (body.destroyed) return;
  body.on('error', () => {});
  body.destroy();
}

/** A JSON answer: the value parsed, and the text it was parsed from. */
export interface ReceivedJson {
  /** `undefined` when the body is empty. */
  readonly value: unknown;
  readonly text: string;
}

/** Parses a success body as JSON, keeping its text (a listing's records are stored from it). */
export function parseJsonBody(bytes: Buffer, target: RequestTarget): ReceivedJson {
  const text = bytes.toString('utf8');
  if (text.length === 0) return { value: undefined, text };
  try {
    return { value: JSON.parse(text), text };
  } catch (error) {
    throw new ResponseValidationError('response body is not valid JSON', {
      target,
      body: truncateText(text),
      cause: error,
    });
  }
}

/**
 * Reads the start of an error body (then cancels the rest) as JSON when it parses, else as text;
 * the shape is opaque (docs/records.md). Never throws: a body that fails mid-way is dropped.
 */
export async function readErrorBody(body: Readable): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= errorBodyLimit) break;
    }
  } catch {
    // The status already tells what happened; a broken error body adds nothing.
  } finally {
    cancelBody(body);
  }
  return errorBodyOf(Buffer.concat(chunks, size));
}

/** An error body's first bytes as JSON when they parse, else as text; `undefined` when blank. */
export function errorBodyOf(bytes: Buffer): unknown {
  const text = bytes.subarray(0, errorBodyLimit).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return truncateText(text);
  }
}

/**
 * A short human summary of an opaque error body, for messages: a `message` field or the text.
 * Secrets are blanked before it is cut short, so no part of one survives the cut.
 */
export function summarizeErrorBody(body: unknown): string {
  if (typeof body === 'string') return redactSecrets(body).slice(0, 200);
  if (typeof body !== 'object' || body === null) return '';
  const record = body as Record<string, unknown>;
  const nested =
    typeof record.error === 'object' && record.error !== null
      ? (record.error as Record<string, unknown>)
      : {};
  const candidate = [nested.message, record.message, record.error, record.detail, record.title].find(
    (value) => typeof value === 'string' && value !== '',
  );
  return typeof candidate === 'string' ? redactSecrets(candidate).slice(0, 200) : '';
}

function truncateText(text: string): string {
  return text.length > errorTextLimit ? `${text.slice(0, errorTextLimit)}...` : text;
}
