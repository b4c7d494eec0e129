import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/**
 * `/healthz`: liveness, answered without touching the database (a database blip must not make the
 * orchestrator restart every worker). `/readyz`: the worker's database answers. `/metrics`: Prometheus text
 * exposition of `metrics`, when given.
 */
export function createHealthServer(isReady: () => Promise<boolean>, metrics?: Registry): Server {
  return createServer((request, response) => {
    const send = (status: number, body: object) => {
      response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      response.end(JSON.stringify(body));
    };
    const path = (request.url ?? '').split('?')[0];
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path === '/readyz') {
      void isReady().then((ready) =>
        ready ? send(200, { status: 'ready' }) : send(503, { status: 'unavailable', failed: ['database'] }),
      );
      return;
    }
    if (path === '/metrics' && metrics) {
      metrics.metrics().then(
        (text) => {
          response.writeHead(200, { 'content-type': metrics.contentType });
          response.end(text);
        },
        () => send(500, { status: 'metrics failed' }),
      );
      return;
    }
    send(404, { status: 'not found' });
  });
}
