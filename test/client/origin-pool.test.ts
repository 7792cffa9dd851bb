import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTmsClient } from '../../src/client/index.js';
import { type StartedSim, startTestSim } from './support/sim.js';

/** A TCP relay in front of the simulator that counts the connections made to it and those open. */
async function countingRelay(
  target: URL,
): Promise<{ url: string; opened: () => number; open: () => number; server: Server }> {
  let opened = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    opened += 1;
    sockets.add(socket);
    const upstream = connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      sockets.delete(socket);
      socket.destroy();
      upstream.destroy();
    };
    socket.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, opened: () => opened, open: () => sockets.size, server };
}

describe("one origin's keep-alive pool in a process", () => {
  let sim: StartedSim;
  let relay: Awaited<ReturnType<typeof countingRelay>>;
  afterEach(async () => {
    relay?.server.close();
    await sim?.close();
  });

  it('is shared by the clients of two accounts, and closed with the last of them', async () => {
    sim = await startTestSim({ accounts: 2 });
    relay = await countingRelay(new URL(sim.url));
    const clients = ['dev-api-token-1', 'dev-api-token-2'].map((apiToken) =>
      createTmsClient({ baseUrl: relay.url, apiToken, connections: 1 }),
    );
    const [first, second] = clients as [
      ReturnType<typeof createTmsClient>,
      ReturnType<typeof createTmsClient>,
    ];
    await first.getVersion();
    const openedByFirst = relay.opened();
    // The second account's login and requests, one at a time, ride the sockets the first opened.
    for (let turn = 0; turn < 3; turn++) {
      await second.getVersion();
      await first.getVersion();
    }
    expect(relay.opened()).toBe(openedByFirst);
    await first.close();
    await second.getVersion();
    expect(relay.open()).toBeGreaterThan(0);
    await second.close();
    await waitFor(() => relay.open() === 0);
    expect(relay.open()).toBe(0);
  });
});

async function waitFor(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 2000; waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
}
