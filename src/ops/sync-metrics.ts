import diagnosticsChannel from 'node:diagnostics_channel';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Readiness } from '../../jobs/readiness.js';
import type { ClientTraffic } from '../client/index.js';
import type { PartitionSummary } from '../sync/run-options.js';
import { type PartitionHealth, scrapePartitions } from './partition-gauges.js';
import { scrapeReadiness } from './readiness-gauges.js';

/** What the metrics read at scrape time; each is optional so tests can leave one out. */
export interface SyncMetricsSources {
  /** Job counts by state (BullMQ `queue.getJobCounts()`). */
  readonly jobCounts?: () => Promise<Record<string, number>>;
  /**
   * Every configured stream partition: seconds since its last successful run (null before the
   * first) and its latest run's result.
   */
  readonly partitions?: () => Promise<readonly PartitionHealth[]>;
  /** Whether each worker of the fleet is alive, from their heartbeats in Redis. */
  readonly workers?: () => Promise<ReadonlyArray<{ readonly alive: boolean }>>;
  /** Rows the mass-delete guard holds back, by stream and scope (`held_deletes`). */
  readonly heldDeletes?: () => Promise<Array<{ stream: string; scope: string; wouldDelete: number }>>;
  /** Origin of the TMS (`http://host:port`): responses from it are counted by status. */
  readonly tmsOrigin?: string;
  /** The TMS client's counters and limits (request-core.ts). */
  readonly traffic?: () => ClientTraffic;
  /** Write-back commands by status and kind (`tms_commands`, docs/write-back.md). */
  readonly commandCounts?: () => Promise<Array<{ status: string; kind: string; count: number }>>;
  /** Whether the worker can do its job, as `/readyz` answers (readiness.ts). */
  readonly readiness?: () => Promise<Readiness>;
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
  if (sources.commandCounts) scrapeCommands(registry, sources.commandCounts);
  if (sources.traffic) scrapeTraffic(registry, sources.traffic);
  if (sources.readiness) scrapeReadiness(registry, sources.readiness);
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
  scrapePartitions(registry, sources);
  new Gauge({
    name: 'tms_sync_workers_alive',
    help: 'Workers whose heartbeat in Redis is fresh (the fleet, as any worker sees it).',
    registers: [registry],
    async collect() {
      if (!sources.workers) return;
      this.set((await sources.workers()).filter((worker) => worker.alive).length);
    },
  });
}

/** The client's view of the TMS, read at scrape time; cumulative figures are counters. */
function scrapeTraffic(registry: Registry, traffic: () => ClientTraffic): void {
  const gauge = (name: string, help: string, value: (seen: ClientTraffic) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value(traffic()));
      },
    });
  const counter = (name: string, help: string, value: (seen: ClientTraffic) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(value(traffic()));
      },
    });
  gauge('tms_sync_tms_requests_in_flight', 'Requests to the TMS in flight now.', (seen) => seen.inFlight);
  gauge(
    'tms_sync_tms_concurrency_limit',
    'The adaptive limit on requests in flight (grows while the TMS answers well, TMS_MAX_CONCURRENCY at most).',
    (seen) => seen.limit,
  );
  gauge(
    'tms_sync_tms_breaker_open',
    'Whether requests to the TMS stopped because nothing succeeded for TMS_PATIENCE_SECONDS (1 open, 0.5 probing).',
    (seen) => ({ closed: 0, 'half-open': 0.5, open: 1 })[seen.breaker],
  );
  counter('tms_sync_tms_sends_total', 'Requests sent to the TMS, retries included.', (seen) => seen.sends);
  counter(
    'tms_sync_tms_retries_total',
    'Requests to the TMS sent again after a failure.',
    (seen) => seen.retries,
  );
  counter('tms_sync_tms_rate_limited_total', 'Requests the TMS answered 429.', (seen) => seen.rateLimited);
  counter(
    'tms_sync_tms_paused_seconds_total',
    "Wall time every request of this process was held because a 429's Retry-After asked to wait.",
    (seen) => seen.pausedMs / 1000,
  );
  counter(
    'tms_sync_tms_budget_wait_seconds_total',
    'Time requests waited on the request budget (TMS_MAX_RPS and pauses after a 429).',
    (seen) => seen.budgetWaitMs / 1000,
  );
}

/** The outbox by status and kind, read at scrape time; `needs_review` above 0 wants a person. */
function scrapeCommands(registry: Registry, counts: NonNullable<SyncMetricsSources['commandCounts']>): void {
  new Gauge({
    name: 'tms_sync_commands',
    help: 'Write-back commands in the outbox by status and kind (needs_review: a person must decide).',
    labelNames: ['status', 'kind'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const { status, kind, count } of await counts()) this.set({ status, kind }, count);
    },
  });
}
