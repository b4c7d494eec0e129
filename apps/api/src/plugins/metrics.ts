import fp from 'fastify-plugin';
import { metricMethod } from '../lib/metrics.js';

/**
 * Every answered request in `http_server_request_duration_seconds`, labelled by method, route template
 * (`/api/account/wallets/:id`; empty when no route matched) and status: never a raw path or query string.
 */
export default fp(
  async (app) => {
    const { httpRequestDuration } = app.metrics;
    app.addHook('onResponse', (request, reply, done) => {
      httpRequestDuration.observe(
        {
          http_request_method: metricMethod(request.method),
          http_route: request.routeOptions.url ?? '',
          http_response_status_code: String(reply.statusCode),
        },
        reply.elapsedTime / 1000,
      );
      done();
    });
  },
  { name: 'metrics', dependencies: ['infrastructure'] },
);
