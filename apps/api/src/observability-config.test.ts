/**
 * Issue 18 item 8: the Prometheus configuration, alert rules and Grafana dashboard in infra/observability load
 * in Prometheus's own checker, and every metric they read is one the api or the worker exports.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { WorkerMetrics } from '@nestegg/billing-worker/metrics';
import type { Database } from '@nestegg/db';
import type { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ApiMetrics } from './lib/metrics.js';

const folder = fileURLToPath(new URL('../../../infra/observability/', import.meta.url));
const run = promisify(execFile);

/** Every sample name a registry exposes (histograms as their _bucket, _count and _sum series). */
function exported(registry: Registry): string[] {
  return registry
    .getMetricsAsArray()
    .flatMap((metric) =>
      (metric as unknown as { type: string }).type === 'histogram'
        ? [`${metric.name}_bucket`, `${metric.name}_count`, `${metric.name}_sum`]
        : [metric.name],
    );
}

/** Metric names in PromQL expressions: identifiers of our families, outside label matchers and `by (…)`. */
function metricsIn(expressions: string[]): string[] {
  const names = expressions.flatMap((expression) =>
    [
      ...expression
        .replace(/\{[^}]*\}|\b(?:by|without)\s*\([^)]*\)/g, '')
        .matchAll(/\b(?:http_server|nestegg|db_client|nodejs|process)_[a-z0-9_]+/g),
    ].map((match) => match[0]),
  );
  return [...new Set(names)];
}

describe('infra/observability', () => {
  it('loads in promtool: the scrape configuration and the alert rules', async () => {
    const config = await run('promtool', ['check', 'config', `${folder}prometheus.yml`]);
    expect(config.stdout).toContain('SUCCESS');
    const rules = await run('promtool', ['check', 'rules', `${folder}alerts.yml`]);
    expect(rules.stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('reads only metrics the api and the worker export', () => {
    // What the api registers as it wires its pool, hash queue and readiness (see infrastructure.ts, health.ts).
    const api = new ApiMetrics({ runtime: true });
    api.observeConnectionPool({ inUse: 0, pending: 0, size: 1 });
    api.observeDependencies(async () => ({}));
    api.observe('nestegg_password_hash_queue_depth', 'hash queue', () => 0);
    const available = new Set([
      ...exported(api.registry),
      ...exported(new WorkerMetrics({} as Database, { runtime: false }).registry),
    ]);
    const rules = readFileSync(`${folder}alerts.yml`, 'utf8')
      .split('\n')
      .filter((line) => !line.trim().startsWith('summary'));
    const dashboard = JSON.parse(readFileSync(`${folder}grafana-dashboard.json`, 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    const used = metricsIn([
      rules.join('\n'),
      ...dashboard.panels.flatMap((panel) => panel.targets.map((t) => t.expr)),
    ]);
    expect(used.length).toBeGreaterThan(15);
    expect(used.filter((name) => !available.has(name))).toEqual([]);
  });
});
