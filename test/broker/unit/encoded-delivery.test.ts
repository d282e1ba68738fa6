/**
 * Reliable deliveries emitted from the stored JSON text (issue 7, durable throughput): the
 * packet `emitEncodedDelivery` writes must be byte for byte what socket.io would encode for
 * `socket.emit(event, {...base, msgId, msg_id, delivery_attempt})`, on the root namespace and
 * another one, and it must be chunked exactly when `emitDelivery` would chunk.
 */
import { Encoder } from 'socket.io-parser';
import { describe, expect, it } from 'vitest';
import {
  emitDelivery,
  emitEncodedDelivery,
  emitJson,
  emitSingleDelivery,
  encodableBase,
} from '../../../broker/delivery/chunked-emit';
import type { BrokerSocket } from '../../../broker/transport/socket-types';
import type { DeliveryEnvelope } from '../../../shared/protocol-events';

/** A socket that records what would be written: pre-encoded packets and `emit` calls. */
function recordingSocket(nsp: string) {
  const packets: Array<{ packet: unknown; opts: unknown }> = [];
  const emits: unknown[][] = [];
  const socket = {
    nsp: { name: nsp },
    client: {
      _packet: (packet: unknown, opts: unknown) => packets.push({ packet, opts }),
    },
    emit: (...args: unknown[]) => emits.push(args),
  };
  return { socket: socket as unknown as BrokerSocket, packets, emits };
}

const base: DeliveryEnvelope = {
  event: 'job',
  message: { s: 1, text: 'quote " backslash \\ unicode é \u2028', list: [1, null, true] },
  from: 'fleet',
  content_type: 'application/json',
};

describe('emitEncodedDelivery', () => {
  for (const nsp of ['/', '/tenant']) {
    it(`writes what socket.io encodes for the full envelope (namespace ${nsp})`, () => {
      const { socket, packets } = recordingSocket(nsp);
      const json = encodableBase(base)!;
      emitEncodedDelivery(socket, 'CONSUME-fleet-job', json, 'msg-abc-"1"', 2);
      const expected = new Encoder().encode({
        type: 2,
        nsp,
        data: [
          'CONSUME-fleet-job',
          { ...base, msgId: 'msg-abc-"1"', msg_id: 'msg-abc-"1"', delivery_attempt: 2 },
        ],
      });
      expect(packets).toEqual([
        { packet: expected[0], opts: { preEncoded: true, compress: true } },
      ]);
    });
  }

  it('emitJson writes what socket.io encodes for one JSON argument', () => {
    const { socket, packets } = recordingSocket('/');
    emitJson(socket, 'ACK_OK', `{"ok":true,"msgId":${JSON.stringify('msg-"x"')}}`);
    const expected = new Encoder().encode({
      type: 2,
      nsp: '/',
      data: ['ACK_OK', { ok: true, msgId: 'msg-"x"' }],
    });
    expect(packets).toEqual([{ packet: expected[0], opts: { preEncoded: true, compress: true } }]);
  });

  it('chunks exactly the text emitDelivery chunks, at the same size', () => {
    const big = { ...base, message: 'x'.repeat(300) };
    const fast = recordingSocket('/');
    const slow = recordingSocket('/');
    emitEncodedDelivery(fast.socket, 'CONSUME-k', encodableBase(big)!, 'msg-1', 1, 128);
    const envelope = { ...big, msgId: 'msg-1', msg_id: 'msg-1', delivery_attempt: 1 };
    emitDelivery(slow.socket, 'CONSUME-k', envelope, 128);
    const strip = (args: unknown[]) => {
      const frame = args[1] as Record<string, unknown>;
      return [args[0], { ...frame, transferId: 'id' }];
    };
    expect(fast.packets).toEqual([]);
    expect(fast.emits.length).toBeGreaterThan(1);
    expect(fast.emits.map(strip)).toEqual(slow.emits.map(strip));
  });

  it('refuses a base it cannot extend: per-attempt keys present, or an empty object', () => {
    expect(encodableBase({ ...base, msgId: 'x' } as DeliveryEnvelope)).toBeUndefined();
    expect(encodableBase({ ...base, delivery_attempt: 1 } as DeliveryEnvelope)).toBeUndefined();
    expect(encodableBase({} as DeliveryEnvelope)).toBeUndefined();
    expect(encodableBase(base)).toBe(JSON.stringify(base));
  });
});

describe('emitSingleDelivery', () => {
  const strip = (args: unknown[]) =>
    args[0] === 'CONSUME_CHUNK' ? [args[0], { ...(args[1] as object), transferId: 'id' }] : args;

  it('emits what emitDelivery emits: one event when small, the same chunks when large', () => {
    const cases: Array<[DeliveryEnvelope, number]> = [
      [base, 1_024],
      [{ ...base, message: 'x'.repeat(2_000) }, 1_024],
      [{ ...base, message: 'é'.repeat(200) }, 1_024],
      [{ ...base, message: 'y'.repeat(300) }, 128],
    ];
    const counts: number[] = [];
    for (const [envelope, chunkSize] of cases) {
      const single = recordingSocket('/');
      const cached = recordingSocket('/');
      emitSingleDelivery(single.socket, 'CONSUME-k', envelope, chunkSize);
      emitDelivery(cached.socket, 'CONSUME-k', envelope, chunkSize);
      expect(single.emits.map(strip)).toEqual(cached.emits.map(strip));
      counts.push(single.emits.length);
    }
    expect(counts[0]).toBe(1);
    expect(counts[1]).toBeGreaterThan(1);
    expect(counts[2]).toBe(1);
    expect(counts[3]).toBeGreaterThan(1);
  });
});
