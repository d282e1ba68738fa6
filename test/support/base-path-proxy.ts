/**
 * A minimal reverse proxy that serves a broker under a base path (`/broker-a/…` → `/…`), HTTP and
 * WebSocket upgrades alike, as a broker behind `https://host/broker-a/` would be. Tests only.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface BasePathProxy {
  url: string;
  close(): Promise<void>;
}

export async function startBasePathProxy(
  targetPort: number,
  basePath: string,
): Promise<BasePathProxy> {
  const strip = (url: string | undefined): string | null =>
    url?.startsWith(`${basePath}/`) ? url.slice(basePath.length) : null;
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const path = strip(req.url);
    if (!path) {
      res.writeHead(404).end();
      return;
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: targetPort, path, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req, socket, head) => {
    const path = strip(req.url);
    if (!path) return socket.destroy();
    const upstream = net.connect(targetPort, '127.0.0.1', () => {
      const headers = Object.entries(req.headers)
        .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : value}`)
        .join('\r\n');
      upstream.write(`${req.method} ${path} HTTP/1.1\r\n${headers}\r\n\r\n`);
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}/`,
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
}
