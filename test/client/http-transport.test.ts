import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpStatusError, ResponseTooLargeError, TimeoutError } from '../../src/client/client-errors.js';
import { resolveClientOptions, type TmsClientOptions } from '../../src/client/client-options.js';
import {
  createHttpTransport,
  type HttpRequest,
  type HttpTransport,
} from '../../src/client/http-transport.js';
import { errorBodyLimit } from '../../src/client/read-body.js';

// The transport against a real HTTP server, for what no simulator answer shapes: a body sent in
// chunks with no declared length, an error body larger than what is kept of it, a server that never
// answers. Every send goes through undici's `dispatch` and gathers its body (gathered-send.ts).

const servers: Server[] = [];
const transports: HttpTransport[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
  for (const server of servers.splice(0)) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(handle: (request: IncomingMessage, response: ServerResponse) => void) {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function transportTo(baseUrl: string, options: Partial<TmsClientOptions> = {}): HttpTransport {
  const transport = createHttpTransport(
    resolveClientOptions({ baseUrl, apiToken: 'unused', logger: pino({ level: 'silent' }), ...options }),
  );
  transports.push(transport);
  return transport;
}

const get = (path: string, signal?: AbortSignal): HttpRequest => ({
  method: 'GET',
  path,
  query: '',
  headers: {},
  signal,
});

/** Writes `count` chunks of `size` bytes with no content-length (chunked), a few ms apart. */
function chunked(count: number, size: number) {
  return (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    let sent = 0;
    const next = () => {
      if (response.destroyed) return;
      if (sent++ === count) return void response.end();
      response.write('x'.repeat(size));
      setTimeout(next, 2);
    };
    next();
  };
}

describe('the HTTP transport against a real server', () => {
  it('gathers a chunked body of undeclared length, and fails one past maxBodyBytes as it counts', async () => {
    const url = await serve(chunked(20, 1000));
    const bytes = await transportTo(url).sendBytes(get('/small'));
    expect(bytes.status).toBe(200);
    expect(bytes.body.length).toBe(20_000);
    const error = await transportTo(url, { maxBodyBytes: 5_000 })
      .sendBytes(get('/large'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).message).toContain('maxBodyBytes (5000 bytes)');
  });

  it('fails a body declared past maxBodyBytes before reading it', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': String(1_000_000) });
      response.write('{');
    });
    const error = await transportTo(url, { maxBodyBytes: 10_000 })
      .sendJson(get('/declared'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
  });

  it('keeps the start of a large error body and stops reading it', async () => {
    let written = 0;
    const url = await serve((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      const next = () => {
        if (response.destroyed || written >= 10_000_000) return void response.end();
        written += 64 * 1024;
        response.write('e'.repeat(64 * 1024), () => setImmediate(next));
      };
      next();
    });
    const error = await transportTo(url)
      .sendJson(get('/broken'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 500 });
    expect(String((error as HttpStatusError).body).startsWith('eee')).toBe(true);
    expect(String((error as HttpStatusError).body).length).toBeLessThanOrEqual(errorBodyLimit);
    // The server was cut off long before its 10 MB.
    expect(written).toBeLessThan(5_000_000);
  });

  it('ends a send the server never answers at timeouts.totalMs, naming the setting', async () => {
    const url = await serve(() => {});
    const started = Date.now();
    const error = await transportTo(url, { timeouts: { totalMs: 300 } })
      .sendJson(get('/silent'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: 'total' });
    expect((error as TimeoutError).message).toContain('timeouts.totalMs');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("ends a send at once when the caller's signal aborts, with the caller's reason", async () => {
    const url = await serve(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 100);
    const error = await transportTo(url)
      .sendBytes(get('/silent', controller.signal))
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe('shutting down');
    const already = await transportTo(url)
      .sendBytes(get('/silent', controller.signal))
      .catch((e: unknown) => e);
    expect((already as Error).message).toBe('shutting down');
  });
});
