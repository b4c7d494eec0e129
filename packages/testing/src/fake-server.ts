import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export type FakeHandler = (request: RecordedRequest) => FakeResponse | Promise<FakeResponse>;

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the handler of one `METHOD /path` route. */
  on(route: string, handler: FakeHandler): void;
  close(): Promise<void>;
}

/**
 * A local HTTP server standing in for an external provider (identity provider key sets, the app store,
 * text recognition, exchange rates, quotes). Routes are `METHOD /path`; unknown routes answer 404.
 */
export async function startFakeServer(routes: Record<string, FakeHandler> = {}): Promise<FakeServer> {
  const handlers = new Map(Object.entries(routes));
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(recorded);
    const handler = handlers.get(`${recorded.method} ${recorded.path}`);
    const reply = handler ? await handler(recorded) : { status: 404, body: { error: 'not found' } };
    const isText = typeof reply.body === 'string';
    res.writeHead(reply.status ?? 200, {
      'content-type': isText ? 'text/plain' : 'application/json',
      ...reply.headers,
    });
    res.end(isText ? reply.body : JSON.stringify(reply.body ?? {}));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on: (route, handler) => handlers.set(route, handler),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
