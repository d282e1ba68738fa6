/**
 * Coalesced socket writes (issue 7): a connection's TCP socket is corked on its first flush in
 * an event-loop turn and uncorked once, at the end of the turn; polling connections are left
 * alone.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { BrokerSocket } from '../../../broker/transport/socket-types';
import { coalesceWrites } from '../../../broker/transport/write-coalescing';

function fakeConnection(transportName: string) {
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
  coalesceWrites({ conn } as unknown as BrokerSocket);
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
});
