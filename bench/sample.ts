import type { SimProcess } from './sim-process.js';

/** One measured repetition of one row. */
export interface Sample {
  /** Records written (or fetched, for the rows that write nothing). */
  readonly records: number;
  readonly pages: number;
  /** API requests the simulator served for it (login included). */
  readonly requests: number;
  /** The sync itself: first request to last commit. */
  readonly seconds: number;
  /** The whole child process, start-up included. */
  readonly wallSeconds: number;
  readonly peakRssMb: number;
  /** CPU the simulator used meanwhile. */
  readonly simCpuSeconds: number;
}

export type Measured = Omit<Sample, 'requests' | 'simCpuSeconds'>;

/** Runs one repetition and adds what the simulator saw of it: requests served, CPU used. */
export async function sampled(sim: SimProcess, run: () => Promise<Measured>): Promise<Sample> {
  const requests = await sim.requests();
  const cpu = sim.cpuSeconds();
  const measured = await run();
  return { ...measured, requests: (await sim.requests()) - requests, simCpuSeconds: sim.cpuSeconds() - cpu };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const rate = (sample: Sample): number => sample.records / sample.seconds;
