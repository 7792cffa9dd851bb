import { Gauge, type Registry } from 'prom-client';
import { type Readiness, readinessChecks } from '../../jobs/readiness.js';

/**
 * `tms_sync_ready` (what `/readyz` answers, 1 or 0) and `tms_sync_readiness_check{check}` (each
 * check, 1 ok), from one readiness read per scrape.
 */
export function scrapeReadiness(registry: Registry, readiness: () => Promise<Readiness>): void {
  let reading: Promise<Readiness> | undefined;
  const read = () => {
    reading ??= readiness().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  new Gauge({
    name: 'tms_sync_ready',
    help: 'Whether the worker can do its job (1), as GET /readyz answers, or not (0: tms_sync_readiness_check says why).',
    registers: [registry],
    async collect() {
      this.set((await read()).ready ? 1 : 0);
    },
  });
  new Gauge({
    name: 'tms_sync_readiness_check',
    help: 'Each check of GET /readyz: 1 ok, 0 failing (redis, store, tms: the token and the breaker, runs: every latest run failed).',
    labelNames: ['check'] as const,
    registers: [registry],
    async collect() {
      const { checks } = await read();
      for (const check of readinessChecks) this.set({ check }, checks[check] === 'ok' ? 1 : 0);
    },
  });
}
