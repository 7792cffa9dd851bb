import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the scripted server saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export type Handler = (request: SeenRequest, response: ServerResponse) => void;

export interface ScriptedServer {
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on port 0 for the shapes the simulator cannot produce on purpose (cursor loops,
 * malformed envelopes, a Retry-After date): `handle` answers each request by its number (0-based).
 */
export async function startScriptedServer(
  handle: (request: SeenRequest, index: number, response: ServerResponse) => void,
): Promise<ScriptedServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const seen = {
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(seen);
      handle(seen, requests.length - 1, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON answer. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** The login answer of docs/api.md, Authentication with an opaque token valid for `ttlMs`. */
export function loginAnswer(response: ServerResponse, access: string, ttlMs = 3_600_000): void {
  sendJson(response, 200, {
    data: { items: [{ access, expiresAt: new Date(Date.now() + ttlMs).toISOString() }] },
  });
}
