/**
 * Visible rejections (issue 11): a frame over `max_http_buffer_size` closes only its connection,
 * is logged with socket id and address, and counted as
 * `tyo_mq_rejected_inputs_total{reason="oversize_frame"}`; malformed payloads count as `malformed`.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { io, type Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { createBroker } from '../../../broker/index';
import { HttpPath } from '../../../shared/http-api';
import { MetricName } from '../../../shared/metric-names';
import { ClientEvent } from '../../../shared/protocol-events';
import { waitUntil } from '../../helpers/wait';

const sample = (text: string, labels: string): number => {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${MetricName.REJECTED_INPUTS_TOTAL}${labels}`));
  return line ? Number(line.split(' ').pop()) : 0;
};

describe('visible rejections', () => {
  for (const transport of ['websocket', 'polling'] as const) {
    it(`an oversize frame (${transport}) closes only that connection, logged and counted`, async () => {
      const lines: Array<Record<string, unknown>> = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      });
      const broker = createBroker(
        { http_api: { enabled: true }, max_http_buffer_size: 10_000 },
        { logger: pino({ level: 'warn' }, sink) },
      );
      const { port } = await broker.listen(0, '127.0.0.1');
      const url = `http://127.0.0.1:${port}`;
      const sockets: Socket[] = [];
      const open = async (transports: string[]) => {
        const s = io(url, { forceNew: true, reconnection: false, transports });
        sockets.push(s);
        await new Promise<void>((resolve) => s.once('connect', () => resolve()));
        return s;
      };
      try {
        const big = await open([transport]);
        const other = await open(['websocket']);
        const bigId = big.id;
        const closed = new Promise<string>((resolve) => big.once('disconnect', resolve));
        big.emit(ClientEvent.PRODUCE, { event: 'e', message: 'x'.repeat(20_000), from: 'P' });
        await closed;
        expect(other.connected).toBe(true);
        expect(await other.timeout(1_000).emitWithAck(ClientEvent.PING, {})).toBeTruthy();
        await waitUntil(
          () => lines.some((l) => l.msg === 'oversize frame: connection closed'),
          'log',
        );
        const entry = lines.find((l) => l.msg === 'oversize frame: connection closed')!;
        expect(entry.socket).toBe(bigId);
        expect(entry.address).toMatch(/127\.0\.0\.1/);
        // An unparsable JSON string is a malformed input.
        other.emit(ClientEvent.PRODUCE, '{not json');
        await other.timeout(1_000).emitWithAck(ClientEvent.PING, {});
        const text = await (await fetch(`${url}${HttpPath.METRICS}`)).text();
        expect(sample(text, '{reason="oversize_frame"}')).toBe(1);
        expect(sample(text, '{reason="malformed"}')).toBe(1);
      } finally {
        for (const s of sockets) s.disconnect();
        await broker.close();
      }
    });
  }

  it('an undecodable socket.io packet closes its connection and counts as malformed', async () => {
    const broker = createBroker(
      { http_api: { enabled: true } },
      { logger: pino({ level: 'silent' }) },
    );
    const { port } = await broker.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${port}`;
    const s = io(url, { forceNew: true, reconnection: false, transports: ['websocket'] });
    try {
      await new Promise<void>((resolve) => s.once('connect', () => resolve()));
      const gone = new Promise((resolve) => s.once('disconnect', resolve));
      // An engine.io message whose socket.io packet type (9) does not exist.
      (s.io.engine as unknown as { write(data: string): void }).write('9garbage');
      await gone;
      const text = await (await fetch(`${url}${HttpPath.METRICS}`)).text();
      expect(sample(text, '{reason="malformed"}')).toBe(1);
    } finally {
      s.disconnect();
      await broker.close();
    }
  });
});
