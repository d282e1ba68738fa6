/**
 * Broker-wide bounds on chunk reassembly (issue 8 item 2, Note 14-A "limit the total
 * reassembled size", "expire idle transfers"): one budget of bytes held by every partial
 * transfer of every socket, and a per-transfer deadline counted from the first chunk that a
 * trickle of chunks cannot push back. Past either: `ERROR {code: -7}`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChunkAssembler } from '../../broker/delivery/chunk-assembler';
import { parseSettings } from '../../broker/config/load-settings';
import { ClientEvent, ProtocolErrorCode, ServerEvent } from '../../shared/protocol-events';
import { startBroker } from '../helpers/broker-harness';
import { bigPair, bigProduce } from '../helpers/chunks';
import { chunkFrames } from '../helpers/stock-clients';
import { collect, waitFor } from '../helpers/wait';

const limits = {
  maxLength: 1_000,
  maxPartialPerSocket: 16,
  idleTimeoutMs: 100,
  deadlineMs: 250,
  maxHeldBytes: 4_000,
};
const chunk = (transferId: string, index: number, total: number, data = 'x'.repeat(10)) => ({
  transferId,
  index,
  total,
  data,
});

describe('ChunkAssembler budget and deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses a chunk that would take the broker past its byte budget, across sockets, and frees it', () => {
    const a = new ChunkAssembler(limits);
    // 16 sockets × 1 transfer × 125 code units = 4,000 bytes: the budget, exactly.
    for (let s = 0; s < 16; s++) {
      expect(a.add(`s${s}`, chunk('t', 0, 4, 'x'.repeat(125))).status).toBe('partial');
    }
    expect(a.heldBytes).toBe(4_000);
    const refused = a.add('late', chunk('t', 0, 4, 'y'));
    expect(refused).toEqual({
      status: 'rejected',
      reason: expect.stringMatching(/limit of 4000 bytes/),
    });
    expect(a.partialTransfers).toBe(16);
    a.dropSocket('s0');
    expect(a.heldBytes).toBe(3_750);
    expect(a.add('late', chunk('t', 0, 4, 'y')).status).toBe('partial');
    a.close();
    expect(a.heldBytes).toBe(0);
  });

  it('gives bytes back when a transfer completes, is refused or expires', () => {
    vi.useFakeTimers();
    const a = new ChunkAssembler(limits);
    a.add('s', chunk('done', 0, 2));
    expect(a.add('s', chunk('done', 1, 2)).status).toBe('complete');
    a.add('s', chunk('long', 0, 2, 'x'.repeat(600)));
    expect(a.add('s', chunk('long', 1, 2, 'x'.repeat(600))).status).toBe('rejected');
    a.add('s', chunk('idle', 0, 2));
    expect(a.heldBytes).toBe(20);
    vi.advanceTimersByTime(limits.idleTimeoutMs);
    expect(a.heldBytes).toBe(0);
    expect(a.partialTransfers).toBe(0);
  });

  it('drops a transfer at its deadline although chunks keep trickling in before each idle timeout', () => {
    vi.useFakeTimers();
    const expired: Array<[string, string]> = [];
    const a = new ChunkAssembler(limits, (_socket, transferId, reason) =>
      expired.push([transferId, reason]),
    );
    let index = 0;
    expect(a.add('s', chunk('slow', index++, 100)).status).toBe('partial');
    // A chunk every 60 ms keeps the transfer from going idle (100 ms) …
    vi.advanceTimersByTime(60);
    expect(a.add('s', chunk('slow', index++, 100)).status).toBe('partial');
    vi.advanceTimersByTime(60);
    expect(a.add('s', chunk('slow', index++, 100)).status).toBe('partial');
    vi.advanceTimersByTime(60);
    expect(a.add('s', chunk('slow', index++, 100)).status).toBe('partial');
    // … but not past its deadline (250 ms from the first chunk).
    vi.advanceTimersByTime(70);
    expect(expired).toEqual([['slow', 'deadline']]);
    expect(a.heldBytes).toBe(0);
    // A chunk arriving after the drop starts a new transfer, not the old one.
    expect(a.add('s', chunk('slow', index, 100)).status).toBe('partial');
    a.close();
  });

  it('refuses a late chunk of a transfer past its deadline even before the timer fires', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const a = new ChunkAssembler({ ...limits, idleTimeoutMs: 10_000, deadlineMs: 250 });
    a.add('s', chunk('t', 0, 3));
    vi.setSystemTime(Date.now() + 300);
    expect(a.add('s', chunk('t', 1, 3))).toEqual({
      status: 'rejected',
      reason: expect.stringMatching(/not complete within 250 ms/),
    });
    expect(a.heldBytes).toBe(0);
    a.close();
  });
});

describe('reassembly bounds over the wire', () => {
  it('refuses, with ERROR -7, a transfer from a second socket past the broker-wide budget; the first completes', async () => {
    // Budget 600,000 bytes = 300,000 code units: one 262,144-unit chunk fits, two do not.
    const h = await startBroker({
      input_limits: { max_chunked_message_length: 300_000, max_reassembly_bytes: 600_000 },
    });
    try {
      const { producer, consumer } = await bigPair(h);
      const other = await h.producer('other');
      const first = chunkFrames(bigProduce('a'.repeat(270_000)));
      const second = chunkFrames(bigProduce('b'.repeat(270_000)));
      expect(first).toHaveLength(2);
      producer.emit(ClientEvent.PRODUCE_CHUNK, first[0]);
      const refused = waitFor<{ message: string; code: number }>(other, ServerEvent.ERROR);
      other.emit(ClientEvent.PRODUCE_CHUNK, second[0]);
      expect(await refused).toEqual({
        message: expect.stringMatching(/600000 bytes/),
        code: ProtocolErrorCode.LIMIT_EXCEEDED,
      });
      const got = collect(consumer, ServerEvent.CONSUME_CHUNK, 2);
      producer.emit(ClientEvent.PRODUCE_CHUNK, first[1]);
      expect((await got).length).toBe(2);
    } finally {
      await h.close();
    }
  });

  it('tells the sender when a transfer is dropped at its deadline', async () => {
    const h = await startBroker({
      input_limits: { transfer_deadline_ms: 150, transfer_idle_timeout_ms: 10_000 },
    });
    try {
      const { producer } = await bigPair(h);
      const frames = chunkFrames(bigProduce('z'.repeat(300_000)));
      const error = waitFor<{ message: string; code: number }>(producer, ServerEvent.ERROR);
      producer.emit(ClientEvent.PRODUCE_CHUNK, frames[0]);
      expect(await error).toEqual({
        message: expect.stringMatching(/not complete within 150 ms/),
        code: ProtocolErrorCode.LIMIT_EXCEEDED,
      });
    } finally {
      await h.close();
    }
  });

  it('refuses settings whose budget cannot hold the largest message', () => {
    expect(() =>
      parseSettings({
        input_limits: { max_chunked_message_length: 1_000_000, max_reassembly_bytes: 1_000_000 },
      }),
    ).toThrow(/input_limits\.max_reassembly_bytes/);
  });
});
