import diagnosticsChannel from 'node:diagnostics_channel';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PartitionSummary } from '../sync/run-options.js';

/** What the metrics read at scrape time; each is optional so tests can leave one out. */
export interface SyncMetricsSources {
  /** Job counts by state (BullMQ `queue.getJobCounts()`). */
  readonly jobCounts?: () => Promise<Record<string, number>>;
  /** Seconds since the last successful run of every stream partition (null before the first). */
  readonly lags?: () => Promise<Array<{ stream: string; partition: string; lagSeconds: number | null }>>;
  /** Rows the mass-delete guard holds back, by stream and scope (`held_deletes`). */
  readonly heldDeletes?: () => Promise<Array<{ stream: string; scope: string; wouldDelete: number }>>;
  /** Origin of the TMS (`http://host:port`): responses from it are counted by status. */
  readonly tmsOrigin?: string;
}

export interface SyncMetrics {
  readonly registry: Registry;
  /** Adds a finished partition run: records, pages, duration. */
  observeRun(summary: PartitionSummary): void;
  /** A sync job failed and will be retried. */
  observeRetry(stream: string): void;
  /** Stops listening to HTTP responses. */
  close(): void;
}

/**
 * The worker's Prometheus registry (one per process), every name `tms_sync_*`. HTTP responses are
 * counted from undici's diagnostics channel, so the client needs no hook for it. prom-client's
 * default process metrics are left out: promtool's lint rejects three of their names.
 */
export function createSyncMetrics(sources: SyncMetricsSources = {}): SyncMetrics {
  const registry = new Registry();
  const byStream = { registers: [registry], labelNames: ['stream'] as const };
  const upserted = new Counter({
    name: 'tms_sync_records_upserted_total',
    help: 'Records inserted or updated in the store.',
    ...byStream,
  });
  const deleted = new Counter({
    name: 'tms_sync_records_deleted_total',
    help: 'Rows marked deleted in the store.',
    ...byStream,
  });
  const pages = new Counter({
    name: 'tms_sync_pages_total',
    help: 'Pages committed to the store.',
    ...byStream,
  });
  const drift = new Counter({
    name: 'tms_sync_column_drift_total',
    help: 'Values that did not fit their typed column (NULL there, whole in data; tms-sync schema).',
    ...byStream,
  });
  const retries = new Counter({
    name: 'tms_sync_job_retries_total',
    help: 'Sync jobs that failed and will be retried.',
    ...byStream,
  });
  const requests = new Counter({
    name: 'tms_sync_http_requests_total',
    help: 'Responses from the TMS by HTTP status.',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'tms_sync_run_duration_seconds',
    help: 'Duration of partition runs by result.',
    labelNames: ['stream', 'result'] as const,
    buckets: [0.5, 2, 10, 30, 120, 600, 1800, 3600],
    registers: [registry],
  });
  scrapeGauges(registry, sources);
  const onResponse = (message: unknown) => {
    const { request, response } = message as {
      request: { origin?: unknown };
      response: { statusCode: number };
    };
    if (sources.tmsOrigin && String(request.origin).startsWith(sources.tmsOrigin))
      requests.inc({ status: String(response.statusCode) });
  };
  diagnosticsChannel.subscribe('undici:request:headers', onResponse);
  return {
    registry,
    observeRun(summary) {
      const stream = summary.stream;
      upserted.inc({ stream }, summary.inserted + summary.updated);
      deleted.inc({ stream }, summary.deleted);
      pages.inc({ stream }, summary.pages);
      drift.inc({ stream }, summary.drift);
      duration.observe({ stream, result: summary.result }, summary.durationMs / 1000);
    },
    observeRetry: (stream) => retries.inc({ stream }),
    close: () => diagnosticsChannel.unsubscribe('undici:request:headers', onResponse),
  };
}

function scrapeGauges(registry: Registry, sources: SyncMetricsSources): void {
  new Gauge({
    name: 'tms_sync_queue_jobs',
    help: 'Jobs in the queue by state.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      if (!sources.jobCounts) return;
      this.reset();
      for (const [state, count] of Object.entries(await sources.jobCounts())) this.set({ state }, count);
    },
  });
  new Gauge({
    name: 'tms_sync_held_deletes',
    help: 'Rows the mass-delete guard holds back until approved (tms-sync approve-deletes).',
    labelNames: ['stream', 'scope'] as const,
    registers: [registry],
    async collect() {
      if (!sources.heldDeletes) return;
      this.reset();
      for (const { stream, scope, wouldDelete } of await sources.heldDeletes())
        this.set({ stream, scope }, wouldDelete);
    },
  });
  new Gauge({
    name: 'tms_sync_watermark_lag_seconds',
    help: 'Seconds since the last successful run of a stream partition.',
    labelNames: ['stream', 'partition'] as const,
    registers: [registry],
    async collect() {
      if (!sources.lags) return;
      this.reset();
      for (const { stream, partition, lagSeconds } of await sources.lags()) {
        if (lagSeconds !== null) this.set({ stream, partition }, lagSeconds);
      }
    },
  });
}
