import { type ChildProcess, spawn } from 'node:child_process';
import { createSimAdminClient, type SimChange } from '../src/sim/sim-admin-client.js';
import { cpuSeconds } from './process-cpu.js';

/** The simulator the benchmark runs against, in its own process (it never shares an event loop). */
export interface SimProcess {
  readonly url: string;
  /** API requests served so far. */
  requests(): Promise<number>;
  /** CPU seconds the simulator has used so far: its share of a run's wall time shows it is no bottleneck. */
  cpuSeconds(): number;
  /** Applies `count` random changes to invoices only, in batches the admin route accepts. */
  changeInvoices(count: number, seed: number): Promise<SimChange[]>;
  stop(): Promise<void>;
}

export async function startSimProcess(invoices: number): Promise<SimProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/sim-server.ts', '--invoices', String(invoices)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await bannerUrl(child);
  const admin = createSimAdminClient({ url });
  return {
    url,
    requests: async () => {
      const counts = await admin.requests();
      let served = 0;
      for (const byStatus of Object.values(counts)) for (const n of Object.values(byStatus)) served += n;
      return served;
    },
    cpuSeconds: () => cpuSeconds(child.pid!),
    async changeInvoices(count, seed) {
      const changes: SimChange[] = [];
      for (let done = 0, batch = 0; done < count; batch++) {
        const size = Math.min(50_000, count - done);
        changes.push(...(await admin.applyChanges(size, seed + batch, { streams: ['invoices'] })));
        done += size;
      }
      return changes;
    },
    async stop() {
      const closed = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await closed;
    },
  };
}

function bannerUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`the simulator exited (${code}) before listening`)));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
  });
}
