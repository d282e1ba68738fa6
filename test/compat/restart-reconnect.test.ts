/**
 * Issue 19 item 1: a clean stop (SIGTERM) closes transports without socket.io's DISCONNECT
 * packet, so clients nobody here wrote come back by themselves when the broker is started again.
 *
 * The broker is the real CLI process (`broker/cli.ts`) with default settings on a fixed port.
 * Clients: a stock socket.io-client with its default options behaving like the tyo-mq Node
 * client (re-registers on every 'connect'), and a Python client on Debian's python3-socketio
 * with its default transports (polling, then a WebSocket upgrade carrying `Origin`), which
 * re-registers on every connect too; a second Python client connects over WebSocket from the
 * start (the tyo-mq Python client's way), so its very handshake carries `Origin`. After SIGTERM (exit code 0) and a new broker on the same
 * port and data directory, both reconnect without help and receive the next message.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientEvent } from '../../shared/protocol-events';
import { exactConsumeEvent, produce, sync } from '../helpers/broker-harness';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process';
import { freePort } from '../helpers/redis-server';
import {
  consumerPayload,
  jsProducerPayload,
  jsSubscribePayload,
  pySubscribePayload,
} from '../helpers/stock-clients';
import { waitFor } from '../helpers/wait';
import { startPyConsumer, type PyConsumer } from '../support/python-consumer';
import {
  connectedStockClient,
  RECONNECT_WAIT_MS,
  waitForHttpStats,
  type StockClient,
} from '../support/stock-node-client';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const PRODUCER = 'fleet';
const EVENT = 'job';
const NODE_CONSUMER = 'node-worker';
const PY_CONSUMER = 'py-worker';
const PY_WS_CONSUMER = 'py-ws-worker';
const DEFAULT_REALM = 'default';

/** socket.io-client's reason for a closed transport (it reconnects) … */
const TRANSPORT_CLOSE = 'transport close';
/** … and for the server's DISCONNECT packet (it never does). */
const SERVER_DISCONNECT = 'io server disconnect';

describe('stock clients across a broker restart (SIGTERM, same port and data dir)', () => {
  let dir: TempDir;
  let port: number;
  const brokers: BrokerProcess[] = [];
  const clients: StockClient[] = [];
  const pys: PyConsumer[] = [];

  const startBroker = async (): Promise<BrokerProcess> => {
    // A CLI start takes well under 2 s alone, but beyond 20 s was seen (through tsx) in a full
    // suite run on a loaded 2-core machine: wait for its ready message longer than the default.
    const broker = await startBrokerProcess(
      ['--port', String(port), '--data-dir', dir.path],
      60_000,
    );
    brokers.push(broker);
    return broker;
  };

  beforeEach(async () => {
    dir = await makeTempDir();
    port = await freePort();
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(pys.splice(0).map((p) => p.close()));
    await Promise.all(brokers.splice(0).map((b) => b.stop()));
    await dir.remove();
  });

  it('the Node and the Python client reconnect by themselves and receive the next message', async () => {
    const first = await startBroker();
    expect(first.port).toBe(port);
    const url = first.url;
    const consumeEvt = exactConsumeEvent(PRODUCER, EVENT);

    // (a) tyo-mq Node client: identify and replay the subscription on every 'connect'.
    const node = await connectedStockClient(url, (s) => {
      s.emit(ClientEvent.CONSUMER, consumerPayload(NODE_CONSUMER));
      s.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload(NODE_CONSUMER, PRODUCER, EVENT));
    });
    clients.push(node);
    // (b) Python clients (python3-socketio), the same on every connect: default transports,
    // and WebSocket only.
    const pyClient = (name: string, transports?: ['websocket']): PyConsumer => {
      const p = startPyConsumer({
        url,
        onConnect: [
          [ClientEvent.CONSUMER, consumerPayload(name)],
          [ClientEvent.SUBSCRIBE, pySubscribePayload(name, PRODUCER, EVENT)],
        ],
        ready: [ClientEvent.PING, { sync: true }],
        listen: [consumeEvt],
        ...(transports ? { transports } : {}),
      });
      pys.push(p);
      return p;
    };
    const py = pyClient(PY_CONSUMER);
    const pyWs = pyClient(PY_WS_CONSUMER, ['websocket']);
    // The producer is a stock client too: it re-identifies on every 'connect'.
    const producer = await connectedStockClient(url, (s) => {
      s.emit(ClientEvent.PRODUCER, jsProducerPayload(PRODUCER));
    });
    clients.push(producer);

    for (const p of [py, pyWs]) {
      await p.next('connected');
      await p.next('ready');
    }
    await sync(node.socket, producer.socket);
    await waitForHttpStats(
      url,
      DEFAULT_REALM,
      (r) => r?.consumers.online === 3 && r.producers.online === 1,
      'the three consumers and the producer are online',
    );

    const nodeGot = waitFor(node.socket, consumeEvt);
    const pyGot = [py, pyWs].map((p) => p.next('message'));
    produce(producer.socket, PRODUCER, EVENT, 'before');
    expect(await nodeGot).toEqual({ event: EVENT, message: 'before', from: PRODUCER });
    for (const got of pyGot) {
      // On WebSocket: the Origin-bearing upgrade or handshake was accepted (issue 19 item 3),
      // not refused (which leaves the default client on polling, the WebSocket-only one out).
      expect(await got).toEqual({
        type: 'message',
        event: consumeEvt,
        data: { event: EVENT, message: 'before', from: PRODUCER },
        transport: 'websocket',
      });
    }

    // Clean stop: SIGTERM, exit code 0, transports closed without the DISCONNECT packet.
    const nodeDown = node.nextDisconnect();
    const producerDown = producer.nextDisconnect();
    const pyDown = [py, pyWs].map((p) => p.next('disconnected'));
    const nodeBack = node.nextConnect();
    const producerBack = producer.nextConnect();
    await first.stop();
    expect(await first.exited).toBe(0);
    expect(await nodeDown).toBe(TRANSPORT_CLOSE);
    expect(await producerDown).toBe(TRANSPORT_CLOSE);
    await Promise.all(pyDown);

    const second = await startBroker();
    expect(second.port).toBe(port);

    // Nobody is told to reconnect: each client's own back-off brings it back.
    await nodeBack;
    await producerBack;
    for (const p of [py, pyWs]) {
      await p.next('connected', undefined, RECONNECT_WAIT_MS);
      await p.next('ready');
    }
    await sync(node.socket, producer.socket);
    await waitForHttpStats(
      url,
      DEFAULT_REALM,
      (r) => r?.consumers.online === 3 && r.producers.online === 1,
      'the three consumers and the producer are back online',
    );

    const nodeAfter = waitFor(node.socket, consumeEvt);
    const pyAfter = [py, pyWs].map((p) => p.next('message'));
    produce(producer.socket, PRODUCER, EVENT, 'after');
    expect(await nodeAfter).toEqual({ event: EVENT, message: 'after', from: PRODUCER });
    for (const got of pyAfter) {
      expect(await got).toEqual({
        type: 'message',
        event: consumeEvt,
        data: { event: EVENT, message: 'after', from: PRODUCER },
        transport: 'websocket',
      });
    }

    expect(node.connects).toBe(2);
    expect(producer.connects).toBe(2);
    expect(node.reasons).toEqual([TRANSPORT_CLOSE]);
    expect(node.reasons).not.toContain(SERVER_DISCONNECT);
    for (const p of [py, pyWs]) {
      expect(p.lines.filter((l) => l.type === 'connected')).toHaveLength(2);
      expect(p.lines.filter((l) => l.type === 'disconnected')).toHaveLength(1);
    }
  }, 150_000);
});
