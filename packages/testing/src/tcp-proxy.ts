import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server (the shared PostgreSQL, typically) that a test can cut and restore,
 * to see what the app does while the server is away without touching the server other tests use.
 */
export interface CuttableProxy {
  /** The port the proxy listens on (127.0.0.1). */
  port: number;
  /** `url` (a `postgres://` or `redis://` URL) with its host and port replaced by the proxy's. */
  via(url: string): string;
  /**
   * Drops every connection through the proxy, then:
   * - `refuse`: stops listening, so new connections are refused at once (a server that is down);
   * - `blackhole`: accepts new connections and never answers (a server or network that hangs).
   */
  cut(mode?: 'refuse' | 'blackhole'): Promise<void>;
  /** Forwards again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

export async function startCuttableProxy(target: { host: string; port: number }): Promise<CuttableProxy> {
  let mode: 'open' | 'refuse' | 'blackhole' = 'open';
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (mode !== 'open') return;
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const port = await listen(server, 0);
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  const stopListening = () =>
    new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  return {
    port,
    via(url) {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(port);
      return proxied.toString();
    },
    async cut(how = 'refuse') {
      mode = how;
      if (how === 'refuse') {
        const closed = stopListening();
        dropAll();
        await closed;
      } else {
        dropAll();
      }
    },
    async restore() {
      mode = 'open';
      dropAll();
      if (!server.listening) await listen(server, port);
    },
    async close() {
      mode = 'refuse';
      const closed = stopListening();
      dropAll();
      await closed;
    },
  };
}
