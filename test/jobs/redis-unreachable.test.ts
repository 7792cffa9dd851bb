import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { type CliProcess, exitWithin, spawnCli } from './support/worker-process.js';

// With Redis down, silent or refusing the password, `trigger`, `worker` and
// `status` answer within seconds naming REDIS_URL (never its password), and a worker still
// starting stops on the first SIGTERM.

const password = 'redis-Secret-7';
let dir: string;
let secured: { port: number; child: ChildProcess };
let silent: { port: number; server: Server; connections: Socket[] };
let closedPort: number;
let replica: { port: number; child: ChildProcess };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tms-redis-down-'));
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--requirepass', password, '--save', '', '--dir', dir],
    { stdio: 'ignore' },
  );
  await waitForRedis(port);
  secured = { port, child };
  // Accepts connections and never answers: a firewall's black hole, or a server hung.
  const connections: Socket[] = [];
  const server = createServer((socket) => connections.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  silent = { port: (server.address() as { port: number }).port, server, connections };
  closedPort = await freePort();
  // A replica of a primary that is not there: it answers reads, refuses writes (READONLY).
  const replicaPort = await freePort();
  const replicaChild = spawn(
    'redis-server',
    [
      '--port',
      String(replicaPort),
      '--bind',
      '127.0.0.1',
      '--replicaof',
      '127.0.0.1',
      String(closedPort),
      '--save',
      '',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  await waitForRedis(replicaPort);
  replica = { port: replicaPort, child: replicaChild };
});

afterAll(async () => {
  secured.child.kill('SIGKILL');
  replica.child.kill('SIGKILL');
  for (const socket of silent.connections) socket.destroy();
  silent.server.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (redisUrl: string): NodeJS.ProcessEnv => ({
  TMS_BASE_URL: 'http://127.0.0.1:9',
  TMS_API_TOKEN: 'dev-api-token',
  STORE_URL: `sqlite:${join(dir, 'store.sqlite')}`,
  REDIS_URL: redisUrl,
  OPS_PORT: '0',
});

async function ended(process: CliProcess, withinMs: number) {
  const started = Date.now();
  const code = await exitWithin(process, withinMs);
  return { code, ms: Date.now() - started, output: process.lines.join('\n') };
}

describe('Redis down, silent or refusing the password', () => {
  const cases = [
    {
      what: 'refusing the password',
      url: () => `redis://:wrong-${password}@127.0.0.1:${secured.port}`,
      reason: /WRONGPASS/,
    },
    { what: 'without a password it needs', url: () => `redis://127.0.0.1:${secured.port}`, reason: /NOAUTH/ },
    { what: 'down', url: () => `redis://127.0.0.1:${closedPort}`, reason: /ECONNREFUSED/ },
    { what: 'silent', url: () => `redis://127.0.0.1:${silent.port}`, reason: /no answer within 5000 ms/ },
  ];

  it.each(cases)(
    'trigger and worker exit 2 within seconds when Redis is $what, naming REDIS_URL',
    async ({ url, reason }) => {
      for (const args of [['trigger', 'invoices'], ['worker']]) {
        const result = await ended(spawnCli(args, env(url())), 15_000);
        expect(result.code, result.output).toBe(2);
        expect(result.output).toMatch(/cannot reach Redis at REDIS_URL=redis:\/\//);
        expect(result.output).toMatch(reason);
        expect(result.output).not.toContain(password);
      }
    },
  );

  it('status shows the store and says why the queue is missing: exit 0 when Redis is down, 2 when it refuses the password', async () => {
    const down = await ended(spawnCli(['status'], env(`redis://127.0.0.1:${closedPort}`)), 10_000);
    expect(down.code, down.output).toBe(0);
    expect(down.output).toMatch(/invoices/);
    expect(down.output).toMatch(
      /queue: cannot reach Redis at REDIS_URL=redis:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/,
    );

    const refused = await ended(
      spawnCli(['status'], env(`redis://:${password}x@127.0.0.1:${secured.port}`)),
      10_000,
    );
    expect(refused.code, refused.output).toBe(2);
    expect(refused.output).toMatch(/invoices/);
    expect(refused.output).toMatch(/REDIS_URL=redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: WRONGPASS/);
    expect(refused.output).not.toContain(password);
  });

  it.each([
    {
      what: 'a database it does not have (/99 of 16)',
      url: () => `redis://:${password}@127.0.0.1:${secured.port}/99`,
      reason:
        /cannot use Redis at REDIS_URL=redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/99: ERR DB index is out of range: the database number in REDIS_URL \(\/99\) must be below/,
    },
    {
      what: 'a read-only replica',
      url: () => `redis://127.0.0.1:${replica.port}`,
      reason:
        /cannot use Redis at REDIS_URL=redis:\/\/127\.0\.0\.1:\d+: it is a read-only replica \(of 127\.0\.0\.1:\d+\): point REDIS_URL at the primary/,
    },
  ])(
    'worker, trigger and status stop with exit 2 and one line naming REDIS_URL on $what, before a key is written',
    async ({ url, reason }) => {
      for (const args of [['worker'], ['trigger', 'invoices'], ['status']]) {
        const result = await ended(spawnCli(args, env(url())), 15_000);
        expect(result.code, result.output).toBe(2);
        const failure = result.output.split('\n').filter((line) => line.includes('REDIS_URL'));
        expect(failure, result.output).toHaveLength(1);
        expect(failure[0]).toMatch(reason);
        if (args[0] !== 'status') expect(result.output.split('\n'), result.output).toHaveLength(1);
      }
      for (const port of [secured.port, replica.port]) {
        const keys = await redisCli(port, ['--no-auth-warning', '-a', password, 'dbsize']);
        expect(keys.trim(), `keys in database 0 of ${port}`).toBe('0');
      }
    },
  );

  it('a worker waiting for a silent Redis stops on the first SIGTERM', async () => {
    const before = silent.connections.length;
    const worker = spawnCli(['worker'], env(`redis://127.0.0.1:${silent.port}`));
    for (let waited = 0; silent.connections.length === before && waited < 15_000; waited += 50)
      await sleep(50);
    expect(silent.connections.length).toBeGreaterThan(before);
    worker.child.kill('SIGTERM');
    const result = await ended(worker, 2_000);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('stopped during start-up');
  });
});

async function waitForRedis(port: number): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const ok = await new Promise<boolean>((resolve) => {
      const child = spawn('redis-cli', ['-p', String(port), '-a', password, '--no-auth-warning', 'ping'], {
        stdio: 'ignore',
      });
      child.on('exit', (code) => resolve(code === 0));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`redis-server did not start on port ${port}`);
}

/** One `redis-cli` command's answer. */
function redisCli(port: number, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', ['-p', String(port), ...args], (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
  });
}
