/**
 * The memory baseline of the RSS scenario (`bench/scenarios/rss.ts`): a bare socket.io v4 relay
 * on plain Node, with socket.io's own defaults.
 *
 * Why not `relay-server.ts`: that one runs under tsx and reaches `broker/index.ts` through
 * `server-process.ts` (for the broker's socket.io options), so its process holds tsx's loader
 * thread and every broker module — tens of MiB a bare relay does not have. This file imports
 * only socket.io and the protocol's event names; the scenario bundles it with esbuild (as the
 * npm package's broker is bundled) and runs the bundle with `node`, no loader.
 *
 * Protocol: `CONSUMER` joins the relay room, `PRODUCE` is re-emitted to the room on
 * `CONSUME-<lc(from-event)>`, `PING` with an ack callback is answered (the scenario's barrier:
 * every earlier event of that socket has been handled). Listens on an ephemeral port on
 * 127.0.0.1 and sends `{type: 'ready', port, pid}` over IPC; exits when the parent goes away
 * or on SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { ClientEvent, consumeEvent, subscriptionKey } from '../../shared/protocol-events';

const ROOM = 'relay';

const http = createServer((_req, res) => {
  res.writeHead(403).end();
});
const io = new Server(http);

io.on('connection', (socket) => {
  socket.on(ClientEvent.CONSUMER, () => void socket.join(ROOM));
  socket.on(ClientEvent.PRODUCE, (payload: { event?: unknown; from?: unknown }) => {
    const name = consumeEvent(subscriptionKey(String(payload.from), String(payload.event)));
    io.to(ROOM).emit(name, payload);
  });
  socket.on(ClientEvent.PING, (_payload: unknown, ack?: unknown) => {
    if (typeof ack === 'function') (ack as (reply: object) => void)({});
  });
});

const stop = () => {
  io.close();
  http.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);

http.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (http.address() as AddressInfo).port, pid: process.pid });
});
