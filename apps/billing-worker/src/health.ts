import { createServer, type Server } from 'node:http';

/**
 * `/healthz`: liveness, answered without touching the database (a database blip must not make the
 * orchestrator restart every worker). `/readyz`: the worker's database answers.
 */
export function createHealthServer(isReady: () => Promise<boolean>): Server {
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
    send(404, { status: 'not found' });
  });
}
