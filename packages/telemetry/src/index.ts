/**
 * Tracing of the api and the billing worker (decisions O10–O14). With `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set, `startTracing` starts the SDK: W3C trace context in and out,
 * spans batched and exported over OTLP/HTTP (protobuf by default, JSON on request: decision O17), outgoing
 * `fetch` calls and Redis commands traced through their diagnostics channels (no module patching). Unset, it
 * loads nothing: the SDK packages are imported only then, and the callers wrap nothing (they ask
 * `activeTracing()`).
 */
import diagnostics from 'node:diagnostics_channel';
import {
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';

export interface Tracing {
  tracer: Tracer;
  /** Exports the spans ended so far (tests; shutdown does it too). */
  flush(): Promise<void>;
  /** Exports what is left and stops tracing (the process's globals are reset). */
  shutdown(): Promise<void>;
}

let active: Tracing | null = null;

/** The tracing started in this process, or null (tracing off: callers wrap nothing). */
export function activeTracing(): Tracing | null {
  return active;
}

/** Whether the environment asks for tracing: an OTLP endpoint, and neither `OTEL_SDK_DISABLED` nor `OTEL_TRACES_EXPORTER=none`. */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

function numberFrom(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0 (got ${raw})`);
  return value;
}

type SdkTrace = typeof import('@opentelemetry/sdk-trace');

/** `OTEL_TRACES_SAMPLER` (+ `_ARG`) as the specification names them; default `parentbased_always_on`. */
function samplerFrom(env: NodeJS.ProcessEnv, sdk: SdkTrace) {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  const ratio = numberFrom(env, 'OTEL_TRACES_SAMPLER_ARG') ?? 1;
  if (ratio > 1) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be between 0 and 1 (got ${ratio})`);
  switch (name) {
    case 'always_on':
      return new sdk.AlwaysOnSampler();
    case 'always_off':
      return new sdk.AlwaysOffSampler();
    case 'traceidratio':
      return new sdk.TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio) });
    default:
      throw new Error(`OTEL_TRACES_SAMPLER ${name} is not supported`);
  }
}

/** `OTEL_BSP_*`: the batch span processor's delay, export timeout, queue and batch sizes. */
function batchOptionsFrom(env: NodeJS.ProcessEnv) {
  const options = {
    scheduledDelayMillis: numberFrom(env, 'OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: numberFrom(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: numberFrom(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: numberFrom(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  };
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/** The OTLP/HTTP encodings the exporters support; the specification's default is `http/protobuf`. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/**
 * The traces' OTLP protocol as the specification names it: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else
 * `OTEL_EXPORTER_OTLP_PROTOCOL`, else `http/protobuf`. Anything else (`grpc` included: no gRPC exporter is
 * shipped) throws, naming the variable, its value and the supported ones.
 */
export function otlpProtocolFrom(env: NodeJS.ProcessEnv = process.env): OtlpProtocol {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = raw.toLowerCase();
    if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return value as OtlpProtocol;
    throw new Error(`${name} ${raw} is not supported (supported: ${OTLP_PROTOCOLS.join(', ')})`);
  }
  return 'http/protobuf';
}

/**
 * Starts tracing when the environment asks for it (`tracingConfigured`), else returns null having loaded
 * nothing. Call it before building the app: its logger, database client and server read `activeTracing()`.
 * `serviceName` is the default of `service.name`; `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` win.
 */
export async function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Promise<Tracing | null> {
  if (active) return active;
  if (!tracingConfigured(env)) return null;
  const protocol = otlpProtocolFrom(env);
  const [sdk, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, resources, { OTLPTraceExporter }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/resources'),
      protocol === 'http/json'
        ? import('@opentelemetry/exporter-trace-otlp-http')
        : import('@opentelemetry/exporter-trace-otlp-proto'),
    ]);
  const { UndiciInstrumentation } = await import('@opentelemetry/instrumentation-undici');

  const resource = resources
    .resourceFromAttributes({ 'service.name': serviceName })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.TracerProvider({
    resource,
    sampler: samplerFrom(env, sdk),
    // The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT itself.
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...batchOptionsFrom(env) })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracer = trace.getTracer('@nestegg/telemetry');

  // fetch (undici) publishes each request on diagnostics channels: a client span, and traceparent injected.
  // (Built after the global provider is set: it enables itself at once; `enabled: false` would stay off.)
  const undici = new UndiciInstrumentation();
  undici.setTracerProvider(provider);
  const stopRedis = traceRedisCommands(tracer);

  const tracing: Tracing = {
    tracer,
    flush: () => provider.forceFlush(),
    async shutdown() {
      if (active !== tracing) return;
      active = null;
      undici.disable();
      stopRedis();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
  active = tracing;
  return tracing;
}

interface RedisCommandMessage {
  command: string;
  database?: number | string;
  serverAddress?: string;
  serverPort?: number;
  error?: unknown;
}

const REDIS_SPAN = Symbol('nestegg.redisSpan');
type TracedMessage = RedisCommandMessage & { [REDIS_SPAN]?: Span };

function endRedisSpan(message: TracedMessage): void {
  const span = message[REDIS_SPAN];
  if (!span) return;
  message[REDIS_SPAN] = undefined;
  if (message.error !== undefined) {
    span.recordException(message.error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * A span per Redis command run inside a span, from ioredis's own tracing channel (`ioredis:command`,
 * ioredis ≥ 6): the command's name only, never its arguments (keys hold session tokens).
 */
function traceRedisCommands(tracer: Tracer): () => void {
  const channel = diagnostics.tracingChannel<string, TracedMessage>('ioredis:command');
  const handlers = {
    start(message: TracedMessage) {
      // Inside a sampled request or job only: connection handshakes and probes would each make a trace of one
      // span, and under an unsampled one the span would record nothing (decision O15).
      if (!trace.getActiveSpan()?.isRecording()) return;
      const operation = String(message.command).toUpperCase();
      message[REDIS_SPAN] = tracer.startSpan(operation, {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'redis',
          'db.operation.name': operation,
          ...(message.database !== undefined ? { 'db.namespace': String(message.database) } : {}),
          ...(message.serverAddress ? { 'server.address': message.serverAddress } : {}),
          ...(message.serverPort ? { 'server.port': message.serverPort } : {}),
        },
      });
    },
    // Thrown synchronously: `error` then `end`, and no asynchronous events follow.
    end(message: TracedMessage) {
      if (message.error !== undefined) endRedisSpan(message);
    },
    asyncStart() {},
    asyncEnd: endRedisSpan,
    error() {},
  };
  channel.subscribe(handlers);
  return () => channel.unsubscribe(handlers);
}

/** `trace_id` and `span_id` of the active span, for a log line (a pino mixin); empty outside any span. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** The W3C `traceparent` of the active span, to carry into work done later (a job, a notification). */
export function currentTraceparent(): string | undefined {
  if (!active) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a W3C header set (an incoming request's) continues; the root context without one. */
export function contextFromHeaders(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

function linkTo(traceparent: string): Link | null {
  const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
  return spanContext && trace.isSpanContextValid(spanContext) ? { context: spanContext } : null;
}

/**
 * Runs one job of the job engine in a span of its own (a new trace, `process <queue>`), linked to the
 * traces that caused it (`causes`: their traceparents, e.g. the request that stored a store notification).
 * Without tracing, just runs it.
 */
export function traceJob<T>(
  job: { queue: string; id?: string | undefined; causes?: Array<string | undefined> },
  run: () => Promise<T>,
): Promise<T> {
  if (!active) return run();
  const links = (job.causes ?? []).flatMap((cause) => (cause ? (linkTo(cause) ?? []) : []));
  return active.tracer.startActiveSpan(
    `process ${job.queue}`,
    {
      kind: SpanKind.CONSUMER,
      root: true,
      links,
      attributes: {
        'messaging.system': 'pg-boss',
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.destination.name': job.queue,
        ...(job.id ? { 'messaging.message.id': job.id } : {}),
      },
    },
    async (span) => {
      try {
        return await run();
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
