import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClientTraffic } from '../../src/client/index.js';
import { createSyncMetrics } from '../../src/ops/sync-metrics.js';

// What operators plug in (docs/ops.md): the alert rules and the Grafana dashboard over /metrics.
const root = join(import.meta.dirname, '..', '..');
const rulesFile = join(root, 'docs', 'ops', 'prometheus-alerts.yml');
const rulesTests = join(root, 'docs', 'ops', 'prometheus-alerts.test.yml');
const dashboardFile = join(root, 'docs', 'ops', 'grafana-dashboard.json');

/** Metrics the rules may name before this code exports them: the write-back outbox's (docs/write-back.md). */
const announced = new Set(['tms_sync_commands']);

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; w: number };
  datasource?: { uid: string };
  targets?: Array<{ expr: string; datasource: { uid: string } }>;
}

const dashboard = JSON.parse(readFileSync(dashboardFile, 'utf8')) as { panels: Panel[] };
const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));

/** `${name}`: how a Grafana dashboard refers to its variable `name`. */
const grafanaVariable = (name: string) => `\${${name}}`;

/** The expression as Prometheus sees it once Grafana has put its variables in. */
const asPromql = (expr: string) => expr.replaceAll('$__rate_interval', '5m').replaceAll('$stream', '.*');

function exportedMetricNames(): Set<string> {
  // Every source given, so every metric is registered (none is read here).
  const metrics = createSyncMetrics({ traffic: () => ({}) as ClientTraffic });
  try {
    const names = metrics.registry.getMetricsAsArray().map((metric) => metric.name);
    const histograms = ['_bucket', '_count', '_sum'].flatMap((suffix) =>
      names.filter((name) => name.endsWith('_duration_seconds')).map((name) => `${name}${suffix}`),
    );
    return new Set([...names, ...histograms, ...announced]);
  } finally {
    metrics.close();
  }
}

describe('the dashboard and the alert rules', () => {
  it('name only metrics the worker exports', () => {
    const exported = exportedMetricNames();
    const named = (text: string) => [...text.matchAll(/\btms_sync_[a-z0-9_]+/g)].map((match) => match[0]);
    const rules = readFileSync(rulesFile, 'utf8');
    const unknown = [...new Set([...queries.flatMap(named), ...named(rules)])].filter(
      (name) => !exported.has(name),
    );
    expect(unknown).toEqual([]);
    expect(new Set(queries.flatMap(named)).size).toBeGreaterThan(15);
  });

  it('the dashboard imports into Grafana: unique panel ids, one datasource variable, a 24-column grid', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      for (const target of panel.targets ?? [])
        expect(target.datasource.uid, panel.title).toBe(grafanaVariable('datasource'));
    }
  });
});

const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const missing = promtool.error !== undefined;
// CI installs promtool (.ci/run); a machine without it skips these, saying so, and never passes them silently in CI.
if (missing && process.env.CI) throw new Error('promtool is missing in CI: .ci/run should have installed it');
if (missing)
  console.warn('promtool is not installed: the alert rules are not checked (apt-get install prometheus)');

describe.skipIf(missing)(
  `promtool${missing ? ' (SKIPPED: promtool not installed; apt-get install prometheus, or see .ci/run)' : ''}`,
  () => {
    const run = (...args: string[]) => {
      const result = spawnSync('promtool', args, { encoding: 'utf8' });
      return { status: result.status, output: `${result.stdout}${result.stderr}` };
    };

    it('accepts the alert rules (promtool check rules)', () => {
      const result = run('check', 'rules', rulesFile);
      expect(result.output).toContain('SUCCESS');
      expect(result.status).toBe(0);
    });

    it('fires each alert when it should and not before (promtool test rules)', () => {
      const result = run('test', 'rules', rulesTests);
      expect(result.output).toContain('SUCCESS');
      expect(result.status).toBe(0);
    });

    it('parses every query of the dashboard', () => {
      const dir = mkdtempSync(join(tmpdir(), 'tms-dashboard-'));
      try {
        const file = join(dir, 'queries.yml');
        const rules = queries.map(
          (expr, index) =>
            `      - record: dashboard:query_${index}\n        expr: ${JSON.stringify(asPromql(expr))}`,
        );
        writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules.join('\n')}\n`);
        const result = run('check', 'rules', file);
        expect(result.output).toContain(`SUCCESS: ${queries.length} rules found`);
        expect(result.status).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
