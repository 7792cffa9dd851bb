import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { requestsLeft } from '../../src/client/requests-left.js';
import { Pool } from '../../src/client/undici-pool.js';

let server: Server | undefined;
let pool: Pool | undefined;

afterEach(async () => {
  await pool?.close();
  server?.close();
  pool = undefined;
  server = undefined;
});

describe('requestsLeft', () => {
  it('resolves once a request made just after an answer, on the same keep-alive socket, has been written', async () => {
    server = createServer((_, response) => response.end('{}'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    // One connection: the second request waits for the socket the first answer just freed, which
    // undici hands on from an immediate and writes on from another (child strategies, paginate).
    pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
    const written: string[] = [];
    const onWrite = (message: unknown) =>
      written.push((message as { request: { path: string } }).request.path);
    subscribe('undici:client:sendHeaders', onWrite);
    try {
      await (await pool.request({ method: 'GET', path: '/first' })).body.text();
      const second = pool.request({ method: 'GET', path: '/second' });
      await requestsLeft();
      expect(written).toEqual(['/first', '/second']);
      await (await second).body.text();
    } finally {
      unsubscribe('undici:client:sendHeaders', onWrite);
    }
  });
});
