/**
 * Decision O10: which environments start tracing, and that a bad sampler setting stops the start by name.
 * Decision O17: the OTLP protocol variables pick protobuf (the default) or JSON, and anything else stops the start.
 */
import { randomBytes } from 'node:crypto';
import {
  activeTracing,
  contextFromHeaders,
  otlpProtocolFrom,
  startTracing,
  type Tracing,
  tracingConfigured,
} from '@nestegg/telemetry';
import { startOtlpReceiver } from '@nestegg/testing';
import { type Span, SpanKind, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

describe('tracing configuration', () => {
  it('is off without an OTLP endpoint, and when disabled or its exporter is none', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(tracingConfigured(endpoint)).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('starts nothing when off: no tracing, no global provider, spans are no-ops', async () => {
    expect(await startTracing('nestegg-api', {})).toBeNull();
    expect(activeTracing()).toBeNull();
    const span = trace.getTracer('probe').startSpan('probe');
    expect(span.isRecording()).toBe(false);
    span.end();
  });

  it('refuses an unknown sampler or a ratio above 1, naming the variable, and stays off', async () => {
    await expect(startTracing('nestegg-api', { ...endpoint, OTEL_TRACES_SAMPLER: 'sometimes' })).rejects.toThrow(
      /OTEL_TRACES_SAMPLER/,
    );
    await expect(
      startTracing('nestegg-api', { ...endpoint, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }),
    ).rejects.toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    await expect(startTracing('nestegg-api', { ...endpoint, OTEL_BSP_SCHEDULE_DELAY: 'soon' })).rejects.toThrow(
      /OTEL_BSP_SCHEDULE_DELAY/,
    );
    expect(activeTracing()).toBeNull();
  });

  it('samples by OTEL_TRACES_SAMPLER: always_off records nothing', async () => {
    const tracing = await startTracing('nestegg-api', { ...endpoint, OTEL_TRACES_SAMPLER: 'always_off' });
    try {
      expect(tracing).not.toBeNull();
      const span = tracing!.tracer.startSpan('probe');
      expect(span.isRecording()).toBe(false);
      span.end();
    } finally {
      await tracing?.shutdown();
    }
    expect(activeTracing()).toBeNull();
  });
});

describe('OTLP protocol (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, OTEL_EXPORTER_OTLP_PROTOCOL)', () => {
  it('is http/protobuf when neither is set, and the traces variable wins over the general one', () => {
    expect(otlpProtocolFrom({})).toBe('http/protobuf');
    expect(otlpProtocolFrom({ OTEL_EXPORTER_OTLP_PROTOCOL: ' ' })).toBe('http/protobuf');
    expect(otlpProtocolFrom({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(
      otlpProtocolFrom({
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      }),
    ).toBe('http/json');
    expect(
      otlpProtocolFrom({
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    ).toBe('http/protobuf');
  });

  it('refuses grpc or any other value at start-up, naming the variable, the value and the supported ones', async () => {
    await expect(startTracing('nestegg-api', { ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).rejects.toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL grpc is not supported (supported: http/protobuf, http/json)',
    );
    await expect(
      startTracing('nestegg-api', {
        ...endpoint,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      }),
    ).rejects.toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL grpc is not supported/);
    expect(activeTracing()).toBeNull();
  });

  /**
   * Starts tracing with the given protocol variables against a receiver of its own, exports a server span that
   * continues a sent traceparent and a client child of it (attributes of each kind, a link), and stops.
   */
  async function exportWith(protocol: Record<string, string>) {
    const receiver = await startOtlpReceiver();
    // The exporter reads its endpoint from the process's environment, as in a deployment.
    const before = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    const traceId = randomBytes(16).toString('hex');
    const callerId = randomBytes(8).toString('hex');
    try {
      const tracing = await startTracing('nestegg-api', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...protocol });
      if (!tracing) throw new Error('tracing did not start');
      try {
        const incoming = contextFromHeaders({ traceparent: `00-${traceId}-${callerId}-01` });
        const server = tracing.tracer.startSpan('GET /probe', { kind: SpanKind.SERVER }, incoming);
        const client = tracing.tracer.startSpan(
          'probe call',
          {
            kind: SpanKind.CLIENT,
            links: [{ context: server.spanContext() }],
            attributes: { text: 'ünïcode', count: 42, below: -7, ratio: 1.5, yes: true, names: ['a', 'b'], ns: [1, 2] },
          },
          trace.setSpan(incoming, server),
        );
        client.end();
        server.end();
        await tracing.flush();
        return { traceId, callerId, server: server.spanContext().spanId, receiver };
      } finally {
        await tracing.shutdown();
      }
    } finally {
      if (before === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = before;
      await receiver.close();
    }
  }

  it('exports protobuf by default, JSON on request, the traces variable winning, the same spans either way', async () => {
    const cases = [
      [{}, 'application/x-protobuf'],
      [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'application/json'],
      [
        { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
        'application/json',
      ],
      [
        { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
        'application/x-protobuf',
      ],
    ] as const;
    for (const [protocol, contentType] of cases) {
      const { traceId, callerId, server, receiver } = await exportWith(protocol);
      expect(receiver.contentTypes(), JSON.stringify(protocol)).toEqual([contentType]);
      const spans = receiver.spans();
      expect(spans).toHaveLength(2);
      expect(spans.find((span) => span.kind === 2)).toEqual({
        traceId,
        spanId: server,
        parentSpanId: callerId,
        name: 'GET /probe',
        kind: 2,
        attributes: {},
        links: [],
        serviceName: 'nestegg-api',
      });
      expect(spans.find((span) => span.kind === 3)).toEqual({
        traceId,
        spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
        parentSpanId: server,
        name: 'probe call',
        kind: 3,
        attributes: { text: 'ünïcode', count: 42, below: -7, ratio: 1.5, yes: true, names: ['a', 'b'], ns: [1, 2] },
        links: [{ traceId, spanId: server }],
        serviceName: 'nestegg-api',
      });
    }
  });
});

describe('the ratio samplers (OTEL_TRACES_SAMPLER=traceidratio, parentbased_traceidratio)', () => {
  /** Starts spans (never ended: nothing is exported) under the given sampler variables, then stops tracing. */
  async function spansUnder(sampler: Record<string, string>, start: (tracing: Tracing) => Span[]) {
    const tracing = await startTracing('nestegg-api', { ...endpoint, ...sampler });
    if (!tracing) throw new Error('tracing did not start');
    try {
      return start(tracing);
    } finally {
      await tracing.shutdown();
    }
  }
  const parentBased = (ratio: string) => ({
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: ratio,
  });
  const roots = (count: number) => (tracing: Tracing) =>
    Array.from({ length: count }, () => tracing.tracer.startSpan('root'));

  it('samples root spans at the ratio, with valid and distinct ids', async () => {
    const spans = await spansUnder(parentBased('0.25'), roots(20_000));
    const contexts = spans.map((span) => span.spanContext());
    expect(contexts.every((context) => trace.isSpanContextValid(context))).toBe(true);
    expect(new Set(contexts.map((context) => context.traceId)).size).toBe(spans.length);
    // 20,000 draws at 25 %: five standard deviations either side.
    const sampled = spans.filter((span) => span.isRecording()).length / spans.length;
    expect(sampled).toBeGreaterThan(0.235);
    expect(sampled).toBeLessThan(0.265);
  });

  it('samples no root at ratio 0 and every root at ratio 1', async () => {
    const recorded = (spans: Span[]) => spans.filter((span) => span.isRecording()).length;
    expect(recorded(await spansUnder(parentBased('0'), roots(2_000)))).toBe(0);
    expect(recorded(await spansUnder(parentBased('1'), roots(2_000)))).toBe(2_000);
  });

  it("parent-based: a continued trace follows its caller's decision, whatever the ratio", async () => {
    const continued = (flags: string) => (tracing: Tracing) => {
      const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-${flags}`;
      return [tracing.tracer.startSpan('continued', { kind: SpanKind.SERVER }, contextFromHeaders({ traceparent }))];
    };
    const [keptAtZero] = await spansUnder(parentBased('0'), continued('01'));
    const [droppedAtOne] = await spansUnder(parentBased('1'), continued('00'));
    expect(keptAtZero!.isRecording()).toBe(true);
    expect(droppedAtOne!.isRecording()).toBe(false);
  });
});
