/**
 * The baseline: a bare socket.io v4 relay and nothing else.
 *
 * Server options (`BENCH_RELAY_OPTIONS`):
 *   - `stock` (default): `new Server(http)` with socket.io's own defaults — no per-message
 *     deflate, which is what a bare relay someone writes runs with;
 *   - `broker`: the broker's default socket.io options (`socketIoOptions`), as this benchmark
 *     used before issue 7 — it then paid the same deflate cost as the broker, which made the
 *     broker look closer to a bare relay than it was.
 *
 * It speaks just enough of the client side of the tyo-mq protocol that the benchmark clients
 * are byte-for-byte the same against relay and broker:
 *   - `CONSUMER` joins the socket to the single relay room (no validation, no registry);
 *   - `PRODUCE {event, message, from}` is re-emitted, unchanged, to every socket in the room,
 *     on the delivery name the broker would use for an exact subscription,
 *     `CONSUME-<lc(from-event)>` (spec §2.2);
 *   - everything else (`PRODUCER`, `SUBSCRIBE`, …) is ignored.
 *
 * Emission mode (`BENCH_RELAY_EMIT`):
 *   - `room` (default): one `io.to(room).emit(...)`, socket.io's own fan-out, which encodes the
 *     packet once and writes the same frame to every socket — what a minimal relay would do;
 *   - `per-socket`: one `socket.emit(...)` per member, which encodes once per socket like the
 *     broker's per-subscription delivery does. Useful to split the broker/relay gap into
 *     "per-socket encoding" and "broker logic".
 *
 * Runs as a child process of the benchmark (`server-process.ts` protocol): listens on an
 * ephemeral port on 127.0.0.1 and reports it over IPC.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { ClientEvent, consumeEvent, subscriptionKey } from '../../shared/protocol-events';
import { BROKER_SOCKET_IO_OPTIONS, serveOverIpc } from './server-process';

const relayOptions = process.env.BENCH_RELAY_OPTIONS === 'broker' ? BROKER_SOCKET_IO_OPTIONS : {};

const ROOM = 'relay';
const perSocket = process.env.BENCH_RELAY_EMIT === 'per-socket';

interface RelayedPayload {
  event?: unknown;
  from?: unknown;
}

serveOverIpc(async () => {
  const http = createServer((_req, res) => {
    res.writeHead(403).end();
  });
  const io = new Server(http, relayOptions);
  const members = new Set<Socket>();

  io.on('connection', (socket) => {
    socket.on(ClientEvent.CONSUMER, () => {
      void socket.join(ROOM);
      members.add(socket);
    });
    socket.on(ClientEvent.PRODUCE, (payload: RelayedPayload) => {
      const name = consumeEvent(subscriptionKey(String(payload.from), String(payload.event)));
      if (perSocket) for (const member of members) member.emit(name, payload);
      else io.to(ROOM).emit(name, payload);
    });
    socket.on('disconnect', () => members.delete(socket));
  });

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        io.disconnectSockets(true);
        io.close(() => resolve());
        http.closeAllConnections();
      }),
  };
});
