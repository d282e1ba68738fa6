/**
 * A connection's life: socket data set up on connect, every packet (heartbeat pongs
 * included) stamps `lastSeenAt` for half-open detection (Note 5.2-A), and on disconnect every
 * name bound to the socket is released with its notifications.
 *
 * Source: `spec/protocol-core.md` §15 steps 1–4, with Note 15-A (every name bound to the
 * socket is cleaned up, not just the first) and Note 15-B (one fresh payload per notification).
 */
import { Protocol } from '../../shared/protocol-events';
import type { HandlerContext } from './handler-context';
import { attachHandlers } from './dispatcher';
import { notifyConsumerOfLeave, notifyProducerOfLeave } from './notify';
import type { RealmRegistry } from '../routing/realm-registry';
import type { BrokerSocket } from '../transport/socket-types';
import { coalesceWrites } from '../transport/write-coalescing';

/** Sets up a newly connected socket. */
export function onConnection(ctx: HandlerContext, socket: BrokerSocket): void {
  socket.data.realm = Protocol.DEFAULT_REALM;
  // Auth disabled: every socket is `{authenticated, default, both}` at once (admin §2.1),
  // unless an embedding `authenticate` hook must decide first (socket-admission.ts).
  socket.data.authenticated = !ctx.auth.enabled && !ctx.embed?.hooks.authenticate;
  socket.data.role = 'both';
  socket.data.pendingRealm = null;
  socket.data.tokenHash = null;
  socket.data.principal = null;
  socket.data.credential = null;
  socket.data.cancelExpiry = null;
  socket.data.tokenless = false;
  socket.data.authQueue = null;
  socket.data.lastSeenAt = Date.now();
  socket.data.producers = new Set();
  socket.data.consumers = new Set();
  socket.data.registeredNames = new Set();
  socket.data.deliveriesSent = 0;
  socket.data.deliveriesFlushed = 0;
  ctx.metrics.connection();
  ctx.clients?.opened(socket, ctx.limits.clientIp(socket));
  socket.conn.on('packet', () => {
    socket.data.lastSeenAt = Date.now();
  });
  // engine.io hands its whole write buffer to the transport at each flush (once per burst).
  coalesceWrites(socket, () => {
    socket.data.deliveriesFlushed = socket.data.deliveriesSent;
  });
  attachHandlers(ctx, socket);
  if (socket.data.authenticated) ctx.embed?.socketAdmitted(socket);
  socket.on('disconnect', (reason) => {
    socket.data.cancelExpiry?.();
    socket.data.cancelExpiry = null;
    try {
      releaseSocket(ctx, socket);
    } catch (err) {
      ctx.logger.error({ err, socket: socket.id }, 'disconnect cleanup failed');
    }
    ctx.logger.debug({ socket: socket.id, reason }, 'disconnected');
  });
}

/** §15: drops partial chunks, takes every bound name offline, then drops pending ACKs. */
export function releaseSocket(ctx: HandlerContext, socket: BrokerSocket): void {
  ctx.chunks.dropSocket(socket.id);
  const realm = ctx.realms.get(socket.data.realm);
  if (realm) releaseNames(realm, socket);
  // Last, so that group copies move only to members that are still online.
  ctx.acks.dropSocket(socket.id, socket.data.deliveriesFlushed);
}

function releaseNames(realm: RealmRegistry, socket: BrokerSocket): void {
  const now = Date.now();

  for (const name of socket.data.producers) {
    const producer = realm.producers.get(name);
    if (!producer || producer.socket !== socket) continue;
    realm.setOffline(producer);
    for (const consumerName of producer.subscribers) {
      const consumer = realm.consumers.get(consumerName);
      if (consumer) notifyConsumerOfLeave(consumer, socket.id, name);
    }
    producer.socket = null;
    producer.offlineAt = now;
    realm.released(name);
  }

  for (const name of socket.data.consumers) {
    const consumer = realm.consumers.get(name);
    if (!consumer || consumer.socket !== socket) continue;
    realm.setOffline(consumer);
    for (const producerName of consumer.subscribeTos) {
      const producer = realm.producers.get(producerName);
      if (producer) notifyProducerOfLeave(producer, socket.id, name);
    }
    consumer.socket = null;
    consumer.offlineAt = now;
    realm.released(name);
  }
}
