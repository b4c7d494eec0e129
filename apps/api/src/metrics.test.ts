/**
 * Issue 18 items 1–3: the api's metrics, scraped from their own listener after real requests and parsed with
 * Prometheus's own parser (promtool): the families operators alert on exist with their labels, and no label
 * carries a member's id, e-mail, token or a query string.
 */
import type { AddressInfo } from 'node:net';
import { checkExposition, type PrometheusSample, parseExposition } from '@nestegg/testing';
import { afterAll, describe, expect } from 'vitest';
import { createMetricsServer } from './metrics-server.js';
import { signUpAndLogIn } from './test/auth-helpers.js';
import { apiTest } from './test/fixtures.js';

const test = apiTest({ METRICS_PORT: '9464', PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_MAX_QUEUED: '0' });
let server: ReturnType<typeof createMetricsServer>;
let base = '';

/**
 * Names promtool's linter flags that we keep: OpenTelemetry's `db.client.connection.count` as its Prometheus
 * exporter writes it, and prom-client's runtime gauges.
 */
const ACCEPTED_NAMES = [
  'db_client_connection_count',
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Scrapes /metrics, has Prometheus's own parser check the exposition, and returns its samples. */
async function scrape(): Promise<PrometheusSample[]> {
  const response = await fetch(`${base}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  const text = await response.text();
  await checkExposition(text, ACCEPTED_NAMES);
  return parseExposition(text);
}

const named = (samples: PrometheusSample[], name: string) => samples.filter((sample) => sample.name === name);
const total = (samples: PrometheusSample[], name: string) =>
  named(samples, name).reduce((sum, sample) => sum + sample.value, 0);

describe('api metrics', () => {
  test.beforeAll(async ({ app }) => {
    server = createMetricsServer(app.metrics.registry, () => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('are served on their own listener, not on the public port', async ({ app }) => {
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    expect((await fetch(`${base}/other`)).status).toBe(404);
  });

  test('time every request by method, route template and status, without ids, e-mails, tokens or queries', async ({
    app,
  }) => {
    const member = await signUpAndLogIn(app);
    const secretQuery = `q=${encodeURIComponent(member.email)}`;
    await app.inject({
      method: 'GET',
      url: `/api/account/wallets/987654?${secretQuery}`,
      headers: member.headers,
    });
    await app.inject({ method: 'GET', url: '/api/auth/profile', headers: member.headers });
    await app.inject({ method: 'GET', url: `/api/nowhere/${member.member.id}` });
    await app.inject({ method: 'PROPFIND', url: '/api/auth/profile' });

    const samples = await scrape();
    const labelled = named(samples, 'http_server_request_duration_seconds_count').map((sample) => sample.labels);
    expect(labelled).toContainEqual(
      expect.objectContaining({
        http_request_method: 'GET',
        http_route: '/api/account/wallets/:id',
        http_response_status_code: '404',
      }),
    );
    expect(labelled).toContainEqual(
      expect.objectContaining({
        http_request_method: 'GET',
        http_route: '/api/auth/profile',
        http_response_status_code: '200',
      }),
    );
    expect(labelled).toContainEqual(expect.objectContaining({ http_route: '', http_response_status_code: '404' }));
    expect(labelled).toContainEqual(expect.objectContaining({ http_request_method: '_OTHER' }));
    expect(named(samples, 'http_server_request_duration_seconds_bucket').length).toBeGreaterThan(labelled.length);

    // Cardinality: no label value anywhere holds a request's data.
    const values = samples.flatMap((sample) => Object.values(sample.labels));
    for (const value of values) {
      expect(value).not.toContain(member.email);
      expect(value).not.toContain(member.token);
      expect(value).not.toContain('987654');
      expect(value).not.toContain('?');
      expect(value).not.toMatch(new RegExp(`/${member.member.id}(/|$)`));
    }
  });

  test('count session lookups by result, password hashing waits and sheds, and the pool', async ({ app }) => {
    const member = await signUpAndLogIn(app);
    await app.inject({ method: 'GET', url: '/api/auth/profile', headers: member.headers });
    // One hash at a time and no queue: of three parallel sign-ups, the ones that find the slot taken are shed.
    const signups = await Promise.all(
      [1, 2, 3].map((n) =>
        app.inject({
          method: 'POST',
          url: '/api/auth/signup',
          remoteAddress: `10.77.0.${n}`,
          payload: {
            email: `burst-${n}-${Date.now()}@nestegg.test`,
            password: 'violet kettle 1',
            displayName: 'Burst',
          },
        }),
      ),
    );
    const shed = signups.filter((response) => response.statusCode === 503).length;
    expect(shed).toBeGreaterThan(0);

    const samples = await scrape();
    const lookups = named(samples, 'nestegg_session_lookups_total').map((sample) => sample.labels.result);
    expect(lookups).toContain('cache_hit');
    const shedding = named(samples, 'nestegg_http_server_shed_requests_total');
    expect(shedding).toContainEqual(
      expect.objectContaining({ labels: expect.objectContaining({ reason: 'password_hash_queue_full' }), value: shed }),
    );
    expect(total(samples, 'nestegg_password_hash_wait_seconds_count')).toBeGreaterThan(0);
    expect(named(samples, 'nestegg_password_hash_queue_depth')).toHaveLength(1);

    const connections = named(samples, 'db_client_connection_count');
    expect(connections.map((sample) => sample.labels.db_client_connection_state).sort()).toEqual(['idle', 'used']);
    expect(total(samples, 'db_client_connection_max')).toBe(10);
    expect(named(samples, 'db_client_connection_pending_requests')).toHaveLength(1);
    expect(total(samples, 'db_client_connection_wait_time_seconds_count')).toBeGreaterThan(0);
    const operations = named(samples, 'db_client_operation_duration_seconds_count');
    expect(operations.some((sample) => sample.labels.outcome === 'ok' && sample.value > 0)).toBe(true);
  });

  test('say whether each dependency answers, and carry the runtime', async () => {
    const samples = await scrape();
    const up = named(samples, 'nestegg_dependency_up');
    expect(up).toContainEqual(
      expect.objectContaining({ labels: expect.objectContaining({ dependency: 'database' }), value: 1 }),
    );
    expect(up).toContainEqual(
      expect.objectContaining({ labels: expect.objectContaining({ dependency: 'cache' }), value: 1 }),
    );
    for (const name of [
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds_count',
      'process_cpu_user_seconds_total',
      'nestegg_redis_connection_errors_total',
    ]) {
      expect(named(samples, name).length, name).toBeGreaterThan(0);
    }
  });
});
