import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';

/** What drizzle uses of a postgres.js pending query: awaiting it, or `.values()` before awaiting. */
interface PendingQuery extends PromiseLike<unknown> {
  values(): PromiseLike<unknown>;
}

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
  let values = false;
  let running: Promise<unknown> | null = null;
  const run = () => {
    running ??= (() => {
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
            const pending = create();
            return await (values ? pending.values() : pending);
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
    })();
    return running;
  };
  const pending = {
    values() {
      values = true;
      return pending;
    },
    // biome-ignore lint/suspicious/noThenProperty: a lazy thenable stands in for the driver's lazy query.
    then<A = unknown, B = never>(
      onFulfilled?: ((value: unknown) => A | PromiseLike<A>) | null,
      onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
    ) {
      return run().then(onFulfilled, onRejected);
    },
    catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null) {
      return run().catch(onRejected);
    },
  };
  return pending;
}
