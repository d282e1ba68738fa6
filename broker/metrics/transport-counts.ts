/**
 * Engine.IO clients connected now, by transport (`websocket`, `polling`), for the
 * `tyo_mq_connections_by_transport` gauge. Read at scrape time only: one pass over the
 * engine's clients, all namespaces (like `tyo_mq_connections_current`, §10.4). A client that
 * upgraded from polling counts under `websocket`. MQTT clients (any MQTT transport: TCP, TLS,
 * WebSocket) count under `mqtt` when there are any.
 */
import type { Server } from 'socket.io';

export function transportCounts(io: Server, mqttClients = 0): Map<string, number> {
  const counts = new Map<string, number>();
  // `clients` is public at runtime but typed protected; `engine` is absent until attached.
  const engine = io.engine as unknown as
    { clients?: Record<string, { transport?: { name?: string } } | undefined> } | undefined;
  const clients = engine?.clients ?? {};
  for (const id in clients) {
    const name = clients[id]?.transport?.name ?? 'unknown';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  if (mqttClients > 0) counts.set('mqtt', mqttClients);
  return counts;
}
