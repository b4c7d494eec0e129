/**
 * Decisions O10–O13, O17: a request sent with a W3C traceparent is traced through the api and exported over
 * OTLP/HTTP (protobuf, the specification's default) to a receiver run by this test: the server span continues
 * the trace, its SQL statements (no parameter values) and Redis commands are its children, the call to the
 * provider carries the traceparent, and the request's log lines carry trace_id and span_id.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTracing } from '@nestegg/telemetry';
import { type ExportedSpan, startFakeServer, startOtlpReceiver } from '@nestegg/testing';
import { context, trace } from '@opentelemetry/api';
import { afterAll, describe, expect } from 'vitest';
import { createMemberWithSession } from './test/app.js';
import { apiTest } from './test/fixtures.js';

const receiver = await startOtlpReceiver();
// What a deployment sets; the test exports often so that flushes are short.
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
// No protocol variable: the default, http/protobuf (decision O17).
delete process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL;
delete process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
const started = await startTracing('nestegg-api');
if (!started) throw new Error('tracing did not start');
const tracing = started;

const provider = await startFakeServer({
  'GET /v6/k/pair/KRW/USD': () => ({
    headers: { 'content-type': 'application/json' },
    body: { result: 'success', time_last_update_unix: 1763769601, conversion_rate: 0.000731 },
  }),
});

const lines: Array<Record<string, unknown>> = [];
/** The same lines as written: JSON.parse would hide a key written twice. */
const rawLines: string[] = [];
const stream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) {
      if (!line.trim()) continue;
      rawLines.push(line);
      lines.push(JSON.parse(line));
    }
    done();
  },
});

const test = apiTest(
  { FX_API_URL: `${provider.url}/`, FX_API_KEY: 'k', FX_TIMEOUT_MS: '2000' },
  { logger: { level: 'info', stream } },
);

afterAll(async () => {
  await tracing.shutdown();
  await Promise.all([receiver.close(), provider.close()]);
});

/** A GET over a real socket with the given headers (node:http, so the test's own call is not traced). */
function get(port: number, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, path, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A POST over a real socket. */
function post(port: number, path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const attribute = (span: ExportedSpan, key: string) => span.attributes[key];
const isServerSpan = (span: ExportedSpan) => span.kind === 2;

/**
 * The spans exported once `done` holds for them. A request's server span ends when the answer's last byte has
 * left, which can be after the client has read it: one flush right after the answer may come too early.
 */
async function exportedWhen(done: (spans: ExportedSpan[]) => boolean): Promise<ExportedSpan[]> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    await tracing.flush();
    if (done(receiver.spans())) break;
    await sleep(20);
  }
  return receiver.spans();
}

describe('tracing (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  test('continues the caller’s trace through SQL, Redis, the provider call and the log lines', async ({ app }) => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const caller = await createMemberWithSession(app);
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');

    const answer = await get(port, '/api/fx/rate?from=KRW&to=USD', {
      ...caller.headers,
      traceparent: `00-${traceId}-${parentId}-01`,
    });
    expect(answer.status, answer.body).toBe(200);
    const inTrace = (spans: ExportedSpan[]) => spans.filter((span) => span.traceId === traceId);
    const spans = inTrace(await exportedWhen((all) => inTrace(all).some(isServerSpan)));
    const server = spans.find(isServerSpan);
    expect(server).toMatchObject({ name: 'GET /api/fx/rate', parentSpanId: parentId });
    expect(attribute(server!, 'http.route')).toBe('/api/fx/rate');
    expect(attribute(server!, 'http.response.status_code')).toBe(200);
    expect(receiver.serviceNames()).toContain('nestegg-api');
    expect(new Set(receiver.contentTypes())).toEqual(new Set(['application/x-protobuf']));

    // Every other span of the request descends from the server span.
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const descendsFromServer = (span: ExportedSpan) => {
      for (let at: ExportedSpan | undefined = span; at; at = byId.get(at.parentSpanId ?? '')) {
        if (at.spanId === server!.spanId) return true;
      }
      return false;
    };

    const sql = spans.filter((span) => attribute(span, 'db.system.name') === 'postgresql');
    expect(sql.length).toBeGreaterThan(0);
    for (const span of sql) {
      expect(descendsFromServer(span)).toBe(true);
      expect(span.kind).toBe(3);
      expect(attribute(span, 'db.query.text')).toEqual(expect.any(String));
      expect(attribute(span, 'db.operation.name')).toMatch(/^[A-Z]+$/);
      // Parameters stay out: the statement carries placeholders, no attribute carries the values.
      expect(JSON.stringify(span.attributes)).not.toContain(caller.token);
      expect(JSON.stringify(span.attributes)).not.toContain('KRW');
    }
    expect(sql.some((span) => /\$1/.test(String(attribute(span, 'db.query.text'))))).toBe(true);

    const redis = spans.filter((span) => attribute(span, 'db.system.name') === 'redis');
    expect(redis.length).toBeGreaterThan(0);
    for (const span of redis) {
      expect(descendsFromServer(span)).toBe(true);
      expect(JSON.stringify(span)).not.toContain(caller.token);
    }

    const outgoing = spans.find((span) => span.kind === 3 && attribute(span, 'http.request.method') === 'GET');
    expect(outgoing && descendsFromServer(outgoing)).toBe(true);
    const call = provider.requests.find((request) => request.path === '/v6/k/pair/KRW/USD');
    expect(call?.headers.traceparent).toBe(`00-${traceId}-${outgoing!.spanId}-01`);

    const logged = lines.filter((line) => line.msg === 'request' && line.path === '/api/fx/rate');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ trace_id: traceId, span_id: server!.spanId });
  });

  test('traces a write whose Idempotency-Key commits with it (statements in the hook’s transaction)', async ({
    app,
  }) => {
    const { port } = app.server.address() as AddressInfo;
    const caller = await createMemberWithSession(app);
    const traceId = randomBytes(16).toString('hex');
    const body = JSON.stringify({ type: 'EXPENSE', amount: 4500, date: '2024-05-03', memo: 'Coffee' });
    const send = () =>
      post(port, '/api/account/entries', body, {
        ...caller.headers,
        'content-type': 'application/json',
        'idempotency-key': 'traced-0001',
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      });
    const first = await send();
    expect(first.status, first.body).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(JSON.parse(again.body)).toEqual(JSON.parse(first.body));
    const inTrace = (spans: ExportedSpan[]) => spans.filter((span) => span.traceId === traceId);
    const spans = await exportedWhen((all) => inTrace(all).filter(isServerSpan).length === 2);
    const operations = inTrace(spans)
      .filter((span) => span.attributes['db.system.name'] === 'postgresql')
      .map((span) => span.attributes['db.operation.name']);
    expect(operations).toContain('INSERT');
    expect(JSON.stringify(receiver.spans().filter((span) => span.traceId === traceId))).not.toContain('Coffee');
  });

  test('traces the delta feed, whose statement is read as bytes (P29)', async ({ app }) => {
    const { port } = app.server.address() as AddressInfo;
    const caller = await createMemberWithSession(app);
    const traceId = randomBytes(16).toString('hex');
    const entry = JSON.stringify({ type: 'EXPENSE', amount: 4500, date: '2024-05-03', memo: '커피' });
    const json = { ...caller.headers, 'content-type': 'application/json' };
    expect((await post(port, '/api/account/entries', entry, json)).status).toBe(201);
    const answer = await get(port, '/api/account/changes', {
      ...caller.headers,
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
    });
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body).changed.entries).toMatchObject([{ memo: '커피', amount: 4500 }]);
    const inTrace = (spans: ExportedSpan[]) => spans.filter((span) => span.traceId === traceId);
    const spans = inTrace(await exportedWhen((all) => inTrace(all).some(isServerSpan)));
    const operations = spans
      .filter((span) => attribute(span, 'db.system.name') === 'postgresql')
      .map((span) => attribute(span, 'db.operation.name'));
    expect(operations).toContain('WITH');
  });

  test('starts a trace for a request without traceparent, and still answers', async ({ app }) => {
    const { port } = app.server.address() as AddressInfo;
    const answer = await get(port, '/healthz', {});
    expect(answer.status).toBe(200);
    const isHealth = (exported: ExportedSpan) => exported.name === 'GET /healthz';
    const span = (await exportedWhen((all) => all.some(isHealth))).find(isHealth);
    expect(span).toBeDefined();
    expect(span!.parentSpanId ?? '').toBe('');
  });

  test('a request logger carries its trace as bindings, written once; other loggers get the active span from the mixin (O13)', async ({
    app,
  }) => {
    const { port } = app.server.address() as AddressInfo;
    const caller = await createMemberWithSession(app);
    const traceId = randomBytes(16).toString('hex');
    // Unsampled (flags 00): the line still carries the trace it belongs to.
    const answer = await get(port, '/api/auth/profile', {
      ...caller.headers,
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-00`,
    });
    expect(answer.status, answer.body).toBe(200);
    const requestLine = rawLines.find((line) => line.includes(traceId) && line.includes('"path":"/api/auth/profile"'));
    expect(requestLine).toBeDefined();
    expect(requestLine!.split('"trace_id"')).toHaveLength(2);
    expect(requestLine!.split('"span_id"')).toHaveLength(2);

    const span = tracing.tracer.startSpan('outside a request');
    context.with(trace.setSpan(context.active(), span), () => app.log.info('inside a span'));
    span.end();
    expect(lines.find((line) => line.msg === 'inside a span')).toMatchObject({
      trace_id: span.spanContext().traceId,
      span_id: span.spanContext().spanId,
    });
    app.log.info('outside any span');
    expect(lines.find((line) => line.msg === 'outside any span')).not.toHaveProperty('trace_id');
  });
});
