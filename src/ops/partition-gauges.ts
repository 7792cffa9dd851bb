import { Gauge, type Registry } from 'prom-client';

/** What the lag and failure gauges read of a partition (status's StreamStatus is one). */
export interface PartitionHealth {
  readonly stream: string;
  readonly partition: string;
  readonly lagSeconds: number | null;
  readonly lastRun: { readonly result: string } | null;
}

/**
 * Lag, failure and "never succeeded" per configured partition, read from the store once per
 * scrape (the first gauge collected reads, the others reuse it).
 */
export function scrapePartitions(
  registry: Registry,
  sources: { readonly partitions?: () => Promise<readonly PartitionHealth[]> },
): void {
  let reading: Promise<readonly PartitionHealth[]> | undefined;
  const read = () => {
    // The gauges collect together, so they share one read; the next scrape reads again.
    reading ??= (sources.partitions?.() ?? Promise.resolve([])).finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const gauge = (name: string, help: string, value: (item: PartitionHealth) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['stream', 'partition'] as const,
      registers: [registry],
      async collect() {
        if (!sources.partitions) return;
        this.reset();
        for (const item of await read()) {
          const current = value(item);
          if (current !== undefined) this.set({ stream: item.stream, partition: item.partition }, current);
        }
      },
    });
  gauge(
    'tms_sync_watermark_lag_seconds',
    'Seconds since the last successful run of a stream partition (absent until one succeeded).',
    (item) => item.lagSeconds ?? undefined,
  );
  gauge(
    'tms_sync_partition_failing',
    'Whether the latest run of a stream partition failed (1) or not (0).',
    (item) => (item.lastRun?.result === 'failed' ? 1 : 0),
  );
  gauge(
    'tms_sync_partition_never_succeeded',
    'Whether a configured stream partition has never had a successful run (1) or has (0).',
    (item) => (item.lagSeconds === null ? 1 : 0),
  );
}
