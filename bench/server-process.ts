import { type ChildProcess, spawn } from 'node:child_process';
import { cpuSeconds } from './process-cpu.js';

/** A server the benchmark runs in a process of its own (it never shares an event loop with a row). */
export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** CPU seconds the server has used so far: its share of a row's time shows it is no bottleneck. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** Runs `node --import tsx <script> ...args` and waits for its `listening on URL` banner. */
export async function startServerProcess(script: string, args: readonly string[]): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await bannerUrl(child);
  return {
    url,
    pid: child.pid!,
    cpuSeconds: () => cpuSeconds(child.pid!),
    async stop() {
      if (child.exitCode !== null) return;
      const closed = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await closed;
    },
  };
}

function bannerUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
  });
}
