import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fileSecretVariables } from '../../config/secret-files.js';
import { type SimHandle, startSim } from '../../src/sim/start-sim.js';
import { deleteKeysUnder, eventually, testRedisUrl } from '../jobs/support/queue-fixture.js';
import { freePort } from '../support/free-port.js';
import { dockerfileStages, envOf, execForm, root } from './dockerfile-parts.js';

// No container engine runs in CI: the image's start command, environment and health check are run
// here against dist/ as the image holds it (WORKDIR /app is the repository's root), with the
// compose file's worker environment: its config file, its secrets as files.
const final = dockerfileStages().at(-1)!;
const last = (keyword: string) => final.filter((item) => item.keyword === keyword).at(-1)!.args;
const imageEnv = Object.assign(
  {},
  ...final.filter((item) => item.keyword === 'ENV').map((item) => envOf(item.args)),
);
const start = [...execForm(last('ENTRYPOINT')), ...execForm(last('CMD'))];
const healthcheck = execForm(last('HEALTHCHECK').slice(last('HEALTHCHECK').indexOf('CMD')));

interface ComposeService {
  environment: Record<string, string>;
  secrets: string[];
  configs: Array<{ source: string; target: string }>;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  configs: Record<string, { file: string }>;
  secrets: Record<string, { file: string }>;
}
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as ComposeFile;
const service = compose.services.worker!;

const dir = mkdtempSync(join(tmpdir(), 'tms-image-'));
const prefix = `image-${process.pid}`;
let sim: SimHandle;
let opsPort: number;
let worker: ChildProcess;
let output = '';
let exited: Promise<number | null>;

/** The compose worker's environment, its /run/secrets files written here, pointed at this machine. */
function workerEnvironment(): NodeJS.ProcessEnv {
  const secretValues: Record<string, string> = {
    tms_api_token: 'dev-api-token\n',
    store_url: `sqlite:${join(dir, 'tms.sqlite')}\n`,
    ops_dashboard_token: 'c9d0a3e1f6b24877\n',
    tms_webhook_secret: '5b8e2f0c7a914d36\n',
  };
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...imageEnv, ...service.environment };
  for (const [name, value] of Object.entries(service.environment)) {
    const secret = /^\/run\/secrets\/(\w+)$/.exec(value)?.[1];
    if (secret === undefined) continue;
    const path = join(dir, secret);
    writeFileSync(path, secretValues[secret]!);
    env[name] = path;
  }
  const config = service.configs.find((item) => item.target === service.environment.TMS_SYNC_CONFIG)!;
  return {
    ...env,
    TMS_SYNC_CONFIG: join(root, compose.configs[config.source]!.file),
    // What the compose network names (sim, redis) is on this machine here; the environment wins
    // over the config file, as it would in the container.
    TMS_BASE_URL: sim.url,
    REDIS_URL: testRedisUrl,
    QUEUE_PREFIX: prefix,
    OPS_HOST: '127.0.0.1',
    OPS_PORT: String(opsPort),
  };
}

async function status(path: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${opsPort}${path}`);
  await response.body?.cancel();
  return response.status;
}

beforeAll(async () => {
  sim = await startSim({ invoices: 20, clients: 5, operators: 2, host: '127.0.0.1', port: 0 });
  opsPort = await freePort();
  worker = spawn(process.execPath, start.slice(1), { cwd: root, env: workerEnvironment() });
  worker.stdout!.on('data', (chunk) => (output += chunk));
  worker.stderr!.on('data', (chunk) => (output += chunk));
  exited = once(worker, 'exit').then(([code]) => code as number | null);
});

afterAll(async () => {
  if (worker.exitCode === null) worker.kill('SIGKILL');
  await sim.close();
  const redis = new Redis(testRedisUrl);
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

describe("the image's start command, run against dist/", () => {
  it('is `node dist/tms-sync.js worker`, and the compose file gives every secret as a file the loader reads', () => {
    expect(start).toEqual(['node', 'dist/tms-sync.js', 'worker']);
    const fileVariables = Object.keys(service.environment).filter((name) => name.endsWith('_FILE'));
    expect(fileVariables.length).toBeGreaterThan(0);
    for (const name of fileVariables)
      expect(fileSecretVariables).toContain(
        name.slice(0, -'_FILE'.length) as (typeof fileSecretVariables)[number],
      );
    expect(Object.keys(service.environment).filter((name) => /TOKEN$|SECRET$|PASSWORD$/.test(name))).toEqual(
      [],
    );
  });

  it('starts the worker with the compose configuration: its ops server answers', async () => {
    const healthy = async () => worker.exitCode !== null || (await status('/healthz').catch(() => 0)) === 200;
    await eventually(healthy, 20_000, 'GET /healthz');
    expect(worker.exitCode, output).toBeNull();
    await eventually(() => output.includes('"worker started"'), 10_000, 'the "worker started" line');
  });

  it('has a health check that asks /readyz and is healthy exactly when /readyz is', async () => {
    const ready = (await status('/readyz')) === 200;
    const check = spawnSync(process.execPath, healthcheck.slice(1), {
      env: { ...process.env, OPS_PORT: String(opsPort) },
      timeout: 10_000,
    });
    expect(check.status).toBe(ready ? 0 : 1);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    worker.kill('SIGTERM');
    expect(await exited, output).toBe(0);
  }, 45_000);
});
