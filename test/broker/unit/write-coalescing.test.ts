/**
 * Coalesced socket writes (issue 7): a connection's TCP socket is corked on its first flush in
 * an event-loop turn and uncorked once, at the end of the turn; polling connections are left
 * alone.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { BrokerSocket } from '../../../broker/transport/socket-types';
import { coalesceWrites } from '../../../broker/transport/write-coalescing';

function fakeConnection(transportName: string, onFlush?: () => void) {
  const raw = {
    corks: 0,
    uncorks: 0,
    destroyed: false,
    cork() {
      this.corks++;
    },
    uncork() {
      this.uncorks++;
    },
  };
  const conn = Object.assign(new EventEmitter(), {
    transport: { name: transportName, socket: { _socket: raw } },
  });
  coalesceWrites({ conn } as unknown as BrokerSocket, onFlush);
  return { conn, raw };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('coalesceWrites', () => {
  it('corks a WebSocket connection once per turn and uncorks it at the end of the turn', async () => {
    const a = fakeConnection('websocket');
    const b = fakeConnection('websocket');
    a.conn.emit('flush');
    a.conn.emit('flush');
    b.conn.emit('flush');
    expect([a.raw.corks, a.raw.uncorks, b.raw.corks]).toEqual([1, 0, 1]);
    await turn();
    expect([a.raw.uncorks, b.raw.uncorks]).toEqual([1, 1]);
    a.conn.emit('flush');
    expect(a.raw.corks).toBe(2);
    await turn();
    expect(a.raw.uncorks).toBe(2);
  });

  it('leaves polling connections alone', async () => {
    const p = fakeConnection('polling');
    p.conn.emit('flush');
    await turn();
    expect([p.raw.corks, p.raw.uncorks]).toEqual([0, 0]);
  });

  it('runs onFlush at every flush, before corking, from the one flush listener', async () => {
    const seen: Array<[string, number]> = [];
    const ws = fakeConnection('websocket', () => seen.push(['websocket', ws.raw.corks]));
    const polling = fakeConnection('polling', () => seen.push(['polling', polling.raw.corks]));
    ws.conn.emit('flush');
    ws.conn.emit('flush');
    polling.conn.emit('flush');
    expect(seen).toEqual([
      ['websocket', 0],
      ['websocket', 1],
      ['polling', 0],
    ]);
    expect([ws.conn.listenerCount('flush'), polling.conn.listenerCount('flush')]).toEqual([1, 1]);
    await turn();
    expect(ws.raw.uncorks).toBe(1);
  });
});
