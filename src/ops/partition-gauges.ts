import { Gauge, type Registry } from 'prom-client';

/** What the lag and failure gauges read of a partition (status's StreamStatus is one). */
export interface PartitionHealth {
  readonly stream: string;
  readonly partition: string;
  readonly lagSeconds: number | null;
  readonly lastRun: { readonly result: string } | null;
}

type PartitionLabels = 'stream' | 'partition';

/**
 * A gauge whose series are the configured partitions, made at each scrape from one read: one series
 * per partition, so at 2,000 operators (20,000 partitions, three gauges) setting each through the
 * gauge's label index cost a third of the scrape (docs/performance-history.md, "2026-11-27 (scrapes)").
 */
class PartitionGauge extends Gauge<PartitionLabels> {
  readonly #series: () => Promise<Array<{ value: number; labels: Record<PartitionLabels, string> }>>;

  constructor(
    describe: { readonly name: string; readonly help: string; readonly registry: Registry },
    series: () => Promise<Array<{ value: number; labels: Record<PartitionLabels, string> }>>,
  ) {
    super({ ...describe, labelNames: ['stream', 'partition'], registers: [describe.registry] });
    this.#series = series;
  }

  /** The gauge as prom-client describes it (no series set on it), with this scrape's series. */
  override async get() {
    return { ...(await super.get()), values: await this.#series() };
  }
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
    new PartitionGauge({ name, help, registry }, async () => {
      const series = [];
      for (const item of await read()) {
        const current = value(item);
        if (current !== undefined)
          series.push({ value: current, labels: { stream: item.stream, partition: item.partition } });
      }
      return series;
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
