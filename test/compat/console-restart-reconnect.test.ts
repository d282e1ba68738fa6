/**
 * Issue 19 item 1, the console's side: "Restart" of the local broker (`restartLocalBroker`, the
 * supervisor's SIGTERM then start on the same port) must not strand stock clients. A stock
 * socket.io-client with its default options (tyo-mq Node client: re-registers on every
 * 'connect') and the Python client on python3-socketio's defaults, both connected to the
 * supervised local broker, reconnect by themselves after Restart and receive the next message.
 *
 * The console runs for real (`createLocalConsole`: supervisor, broker process with auth on and
 * the `default` realm open, manager pool), as test/electron/console-service.test.ts runs it.
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalConsole, type LocalConsole } from '../../electron/services/local-console';
import { ClientEvent } from '../../shared/protocol-events';
import { exactConsumeEvent, produce, sync } from '../helpers/broker-harness';
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
  type StockClient,
} from '../support/stock-node-client';
import { makeTempDir, type TempDir } from '../support/temp-dir';

const PRODUCER = 'console-fleet';
const EVENT = 'job';
const NODE_CONSUMER = 'node-worker';
const PY_CONSUMER = 'py-worker';
const TRANSPORT_CLOSE = 'transport close';

describe("the console's Restart of its local broker", () => {
  let dir: TempDir;
  let local: LocalConsole | null = null;
  const clients: StockClient[] = [];
  const pys: PyConsumer[] = [];

  beforeEach(async () => {
    dir = await makeTempDir();
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(pys.splice(0).map((p) => p.close()));
    await local?.close();
    local = null;
    await dir.remove();
  });

  it('stock clients reconnect by themselves and receive the next message', async () => {
    local = createLocalConsole({
      brokerPort: 0,
      dataDir: path.join(dir.path, 'data'),
      pollIntervalMs: 200,
    });
    const before = await local.startBroker();
    const url = `http://127.0.0.1:${before.port}`;
    const consumeEvt = exactConsumeEvent(PRODUCER, EVENT);

    const node = await connectedStockClient(url, (s) => {
      s.emit(ClientEvent.CONSUMER, consumerPayload(NODE_CONSUMER));
      s.emit(ClientEvent.SUBSCRIBE, jsSubscribePayload(NODE_CONSUMER, PRODUCER, EVENT));
    });
    clients.push(node);
    const py = startPyConsumer({
      url,
      onConnect: [
        [ClientEvent.CONSUMER, consumerPayload(PY_CONSUMER)],
        [ClientEvent.SUBSCRIBE, pySubscribePayload(PY_CONSUMER, PRODUCER, EVENT)],
      ],
      ready: [ClientEvent.PING, { sync: true }],
      listen: [consumeEvt],
    });
    pys.push(py);
    const producer = await connectedStockClient(url, (s) => {
      s.emit(ClientEvent.PRODUCER, jsProducerPayload(PRODUCER));
    });
    clients.push(producer);
    await py.next('ready');
    await sync(node.socket, producer.socket);

    const nodeGot = waitFor(node.socket, consumeEvt);
    const pyGot = py.next('message');
    produce(producer.socket, PRODUCER, EVENT, 'before');
    expect(await nodeGot).toEqual({ event: EVENT, message: 'before', from: PRODUCER });
    expect(await pyGot).toMatchObject({ data: { message: 'before' }, transport: 'websocket' });

    const nodeDown = node.nextDisconnect();
    const nodeBack = node.nextConnect();
    const producerBack = producer.nextConnect();
    const after = await local.service.restartLocalBroker({});
    expect(after).toMatchObject({ state: 'running', port: before.port });
    expect(after.pid).not.toBe(before.pid);
    expect(await nodeDown).toBe(TRANSPORT_CLOSE);

    await nodeBack;
    await producerBack;
    await py.next('connected', undefined, RECONNECT_WAIT_MS);
    await py.next('ready');
    await sync(node.socket, producer.socket);

    const nodeAfter = waitFor(node.socket, consumeEvt);
    const pyAfter = py.next('message');
    produce(producer.socket, PRODUCER, EVENT, 'after');
    expect(await nodeAfter).toEqual({ event: EVENT, message: 'after', from: PRODUCER });
    expect(await pyAfter).toMatchObject({ data: { message: 'after' }, transport: 'websocket' });
    expect(node.reasons).toEqual([TRANSPORT_CLOSE]);
    expect(producer.reasons).toEqual([TRANSPORT_CLOSE]);
    expect(node.connects).toBe(2);
  });
});
