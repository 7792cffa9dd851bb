import { Readable } from 'node:stream';
import type { StopSignal } from '../linked-signals.js';
import type { ApiRequest } from './api-request.js';
import type { HttpRequest } from './http-transport.js';
import { buildQuery } from './request-path.js';

/** The HTTP request one send of an API call makes: its token, its content type, the operator in the query. */
export function toHttpRequest(
  request: ApiRequest,
  token: string | undefined,
  signal: StopSignal | undefined,
): HttpRequest {
  const raw = Buffer.isBuffer(request.body) || request.body instanceof Readable;
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  if (request.body !== undefined)
    headers['content-type'] ??= raw ? 'application/octet-stream' : 'application/json';
  // Not `{ ...query, operatorId }`: on Node 20 a spread copy given a new property gets a hidden
  // class of its own each time (docs/performance-history.md, "Hidden classes").
  const query =
    request.operatorId === undefined
      ? request.query
      : Object.assign({}, request.query, { operatorId: request.operatorId });
  return {
    method: request.method,
    path: request.path,
    query: buildQuery(query),
    headers,
    body:
      request.body === undefined
        ? undefined
        : raw
          ? (request.body as Buffer | Readable)
          : JSON.stringify(request.body),
    signal,
  };
}
