import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..', '..');
const cli = join(root, 'dist', 'tms-sync.js');

/** A `tms-sync` child process with its log lines (JSON from pino) collected. */
export interface CliProcess {
  readonly child: ChildProcess;
  readonly lines: string[];
  /** Resolves with the exit code (null when killed by a signal) once the process ended. */
  readonly exited: Promise<number | null>;
  /** Waits for a log line that contains `text`. */
  waitForLine(text: string, timeoutMs?: number): Promise<string>;
}

/** Starts `node dist/tms-sync.js <args>` with `env` on top of a clean environment. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv): CliProcess {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const waitForLine = (text: string, timeoutMs = 15_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const line = lines.find((item) => item.includes(text));
        if (!line) return;
        cleanup();
        resolve(line);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `no line with "${text}" within ${timeoutMs} ms; last lines:\n${lines.slice(-15).join('\n')}`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });
  return { child, lines, exited, waitForLine };
}

/** A started worker: its ops URL from the "worker started" line. */
export async function spawnWorker(env: NodeJS.ProcessEnv): Promise<CliProcess & { opsUrl: string }> {
  const worker = spawnCli(['worker'], { OPS_PORT: '0', LOG_LEVEL: 'info', ...env });
  const started = await worker.waitForLine('"worker started"', 20_000);
  return { ...worker, opsUrl: (JSON.parse(started) as { ops: string }).ops };
}

/** Waits for the exit within `timeoutMs`, else kills the process and fails. */
export async function exitWithin(process: CliProcess, timeoutMs: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      process.child.kill('SIGKILL');
      reject(new Error(`process did not exit within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([process.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A TMS_SYNC_CONFIG file in `dir`: no schedule tick during the test, small pages. */
export function writeWorkerConfig(dir: string, pageLimit: number): string {
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify({ schedule: { cron: '0 0 1 1 *' }, sync: { pageLimit } }));
  return path;
}

/** The environment of a worker process syncing `simUrl` into a SQLite file in `dir`, on the fixture's queue. */
export function workerEnv(options: {
  simUrl: string;
  dir: string;
  queue: { settings: { redisUrl: string }; prefix: string };
  pageLimit: number;
}): NodeJS.ProcessEnv {
  return {
    TMS_BASE_URL: options.simUrl,
    TMS_API_TOKEN: 'dev-api-token',
    STORE_URL: `sqlite:${join(options.dir, 'store.sqlite')}`,
    REDIS_URL: options.queue.settings.redisUrl,
    QUEUE_PREFIX: options.queue.prefix,
    WORKER_LOCK_MS: '2000',
    TMS_SYNC_CONFIG: writeWorkerConfig(options.dir, options.pageLimit),
  };
}

/** Kills (SIGKILL) every process of the list still running and waits for each to end; empties the list. */
export async function killAll(processes: CliProcess[]): Promise<void> {
  for (const process of processes.splice(0)) {
    if (process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGKILL');
    await process.exited;
  }
}
