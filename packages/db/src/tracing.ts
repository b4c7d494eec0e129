import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { inShape, lazyQuery, type PendingQuery } from './lazy-query';

/** `SELECT`, `INSERT`, `WITH`, … : the statement's first keyword (comments and parentheses skipped). */
export function operationOf(text: string): string {
  const match = /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/|\()*([A-Za-z]+)/.exec(text);
  return match?.[1]?.toUpperCase() ?? 'QUERY';
}

/**
 * A span around one statement, started when the driver runs it (postgres.js queries are lazy) and ended
 * when it settles (decision O12). Its text is the statement as sent, with `$n` placeholders: parameter
 * values never reach the span.
 */
export function tracedQuery(tracer: Tracer, text: string, create: () => PendingQuery): PendingQuery {
  return lazyQuery((shape) => {
    const operation = operationOf(text);
    return tracer.startActiveSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'postgresql',
          'db.operation.name': operation,
          'db.query.text': text,
        },
      },
      async (span) => {
        try {
          return await inShape(create(), shape);
        } catch (error) {
          // The driver's message, not the error object: a constraint error's detail can quote a value.
          const code = (error as { code?: unknown })?.code;
          if (typeof code === 'string') span.setAttribute('db.response.status_code', code);
          span.setAttribute('error.type', typeof code === 'string' ? code : ((error as Error)?.name ?? 'Error'));
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  });
}
