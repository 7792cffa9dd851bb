import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A finished child process: its output, wall time and peak resident set size. */
export interface MeasuredProcess {
  readonly stdout: string;
  readonly wallSeconds: number;
  /** Peak RSS in MB (VmHWM), from `/usr/bin/time` or, without it, by polling /proc. */
  readonly peakRssMb: number;
  /** User + system CPU seconds of the process and its threads (GNU time only; NaN without it). */
  readonly cpuSeconds: number;
}

const gnuTime = '/usr/bin/time';

/**
 * Runs `node ...args` to its end and measures it; a non-zero exit throws with its stderr. With GNU
 * time the peak is exact (the kernel's maxrss); polling /proc every 50 ms may miss a short spike.
 */
export async function runMeasured(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<MeasuredProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'tms-bench-rss-'));
  const timeFile = join(dir, 'time');
  const useTime = existsSync(gnuTime);
  const command = useTime ? gnuTime : process.execPath;
  const argv = useTime ? ['-f', '%M %U %S', '-o', timeFile, process.execPath, ...args] : [...args];
  const started = performance.now();
  const child = spawn(command, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const polled = useTime ? undefined : pollPeak(child.pid!);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallSeconds = (performance.now() - started) / 1000;
  const [peakKb, cpuSeconds] = useTime ? readTimeFile(timeFile) : [polled!.stop(), Number.NaN];
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`);
  return { stdout, wallSeconds, peakRssMb: peakKb / 1024, cpuSeconds };
}

/** GNU time's `%M %U %S` (the last line: earlier ones may carry "Command exited with non-zero status"). */
function readTimeFile(path: string): [peakKb: number, cpuSeconds: number] {
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  const [peak, user, system] = lines.at(-1)!.split(' ').map(Number);
  return [peak!, user! + system!];
}

function pollPeak(pid: number): { stop(): number } {
  let peak = 0;
  const read = () => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) peak = Math.max(peak, Number(match[1]));
    } catch {
      // The process is gone: keep the last reading.
    }
  };
  const timer = setInterval(read, 50);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/** Runs a TypeScript script of the benchmark (`node --import tsx`) and parses the JSON of its last stdout line. */
export async function runScript<T>(
  script: string,
  args: readonly string[],
): Promise<{ result: T; wallSeconds: number; peakRssMb: number }> {
  const measured = await runMeasured(['--import', 'tsx', script, ...args]);
  const result = JSON.parse(measured.stdout.trim().split('\n').at(-1)!) as T;
  return { result, wallSeconds: measured.wallSeconds, peakRssMb: measured.peakRssMb };
}
