import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { contextFromHeaders, type Tracing, traceFields } from '@nestegg/telemetry';
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import pino from 'pino';

const SERVER_SPAN = Symbol('nestegg.serverSpan');
type TracedRequest = IncomingMessage & { [SERVER_SPAN]?: Span };

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Fastify's HTTP server with each request handled inside a server span (decision O11): the span continues
 * the `traceparent` the request carries (else starts a trace), and Fastify's whole pipeline (hooks, the
 * handler, its statements, Redis commands and outgoing calls, the log lines) runs in its context. The
 * server is configured as Fastify configures its own.
 */
export function tracedServerFactory(tracing: Tracing): NonNullable<FastifyServerOptions['serverFactory']> {
  return (handler: Handler, options: FastifyServerOptions): Server => {
    const server = createServer((request: TracedRequest, response) => {
      const parent = contextFromHeaders(request.headers);
      // No attributes for the sampler to read (ours decides by trace id); an unsampled request's span records
      // nothing, so it gets no attributes, name or end either (decision O15).
      const span = tracing.tracer.startSpan(request.method ?? 'HTTP', { kind: SpanKind.SERVER }, parent);
      if (span.isRecording()) traceResponse(request, response, span);
      context.with(trace.setSpan(parent, span), () => handler(request, response));
    });
    server.keepAliveTimeout = options.keepAliveTimeout ?? server.keepAliveTimeout;
    server.requestTimeout = options.requestTimeout ?? server.requestTimeout;
    if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
    return server;
  };
}

function traceResponse(request: TracedRequest, response: ServerResponse, span: Span): void {
  span.setAttributes({
    'http.request.method': request.method ?? '_OTHER',
    'url.path': (request.url ?? '/').split('?')[0] ?? '/',
    'url.scheme': 'http',
    'network.protocol.version': request.httpVersion,
  });
  request[SERVER_SPAN] = span;
  response.once('close', () => {
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (!response.writableFinished) span.setAttribute('error.type', 'aborted');
    span.end();
  });
}

/** Names the server span after the matched route template (`GET /api/posts/:id`), never the raw path. */
export function nameServerSpans(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const span = (request.raw as TracedRequest)[SERVER_SPAN];
    const route = request.routeOptions.url;
    if (span && route) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    done();
  });
}

/**
 * The logger options with `trace_id` and `span_id` on every line written inside a span (decision O13), and the
 * factory of each request's logger; unchanged without tracing. A request's logger carries its server span's ids
 * as bindings, serialised once when Fastify creates it, and has no mixin: a line costs what it costs without
 * tracing. Lines of other loggers (the app's, a service's) written inside a span get the active span's ids from a
 * mixin, as before.
 */
export function traceLogging(
  logger: FastifyServerOptions['logger'],
  tracing: Tracing | null,
): Pick<FastifyServerOptions, 'logger' | 'childLoggerFactory'> {
  if (!tracing || typeof logger !== 'object' || logger === null) return { logger };
  return { logger: { ...logger, mixin: traceFields }, childLoggerFactory: tracedRequestLogger };
}

const tracedRequestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => {
  const child = logger.child({ ...bindings, ...traceFields() }, options);
  (child as unknown as Record<symbol, unknown>)[pino.symbols.mixinSym] = undefined;
  return child;
};
