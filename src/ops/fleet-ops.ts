import { AggregatorRegistry, type Registry } from 'prom-client';
import { type Readiness, type ReadinessCheck, readinessChecks, within } from '../../jobs/readiness.js';

/** What `/metrics` answers with: a registry, or several seen as one. */
export type MetricsText = Pick<Registry, 'metrics' | 'contentType'>;

/**
 * The registries of every connection of the process as one exposition: each series keeps its
 * `connection` label (a default label of its registry), and a metric of several connections is
 * one family with one HELP and TYPE, as Prometheus requires.
 */
export function mergedMetrics(registries: () => readonly Registry[]): MetricsText {
  return {
    contentType: AggregatorRegistry.PROMETHEUS_CONTENT_TYPE,
    async metrics() {
      const each = await Promise.all(registries().map((registry) => registry.getMetricsAsJSON()));
      return AggregatorRegistry.aggregate(each).metrics();
    },
  };
}

/** A connection's readiness, by its name. */
export interface NamedReadiness {
  readonly name: string;
  readonly readiness: () => Promise<Readiness>;
}

/**
 * The readiness of a worker of many connections: ready while Redis answers and some connection can
 * sync (or none runs); one connection's refused token or store away does not make the process
 * unready, it is named in its check (`beta: ...`).
 */
export function fleetReadiness(
  redis: { ping(): Promise<unknown> },
  connections: () => readonly NamedReadiness[],
): () => Promise<Readiness> {
  return async () => {
    const running = connections();
    const [redisProblem, each] = await Promise.all([
      within(async () => void (await redis.ping()), 2000),
      Promise.all(running.map(async (item) => ({ name: item.name, readiness: await item.readiness() }))),
    ]);
    const problems = (check: ReadinessCheck) =>
      each
        .filter((item) => item.readiness.checks[check] !== 'ok')
        .map((item) => `${item.name}: ${item.readiness.checks[check]}`);
    const checks = Object.fromEntries(
      readinessChecks.map((check) => {
        const found = check === 'redis' && redisProblem ? [redisProblem] : problems(check);
        return [check, found.length === 0 ? 'ok' : found.join('; ')];
      }),
    ) as Record<ReadinessCheck, string>;
    const ready = !redisProblem && (each.length === 0 || each.some((item) => item.readiness.ready));
    return { ready, checks };
  };
}
