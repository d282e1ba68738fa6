/**
 * `HELLO` has a schema (issue 8 item 12): its logged fields are capped, a 1 MiB `name` is
 * refused with `ERROR {code: -1}` (§19) and never written to the log, and an ordinary or empty
 * greeting is still only logged (§3 table).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { io, type Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { createBroker } from '../../broker/index';
import { ClientEvent, ProtocolErrorCode, ServerEvent } from '../../shared/protocol-events';
import { record, sync } from '../helpers/broker-harness';
import { waitFor } from '../helpers/wait';

describe('HELLO schema', () => {
  it('refuses an oversized name without logging it, and logs a normal greeting', async () => {
    let logged = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logged += chunk.toString();
        done();
      },
    });
    const broker = createBroker({}, { logger: pino({ level: 'info' }, sink) });
    const { port } = await broker.listen(0, '127.0.0.1');
    let s: Socket | null = null;
    try {
      s = io(`http://127.0.0.1:${port}`, {
        forceNew: true,
        reconnection: false,
        transports: ['websocket'],
      });
      await new Promise<void>((resolve) => s!.once('connect', () => resolve()));
      const error = waitFor<{ message: string; code: number }>(s, ServerEvent.ERROR);
      const huge = 'N'.repeat(1024 * 1024);
      s.emit(ClientEvent.HELLO, { name: huge, type: 'consumer' });
      expect(await error).toMatchObject({ code: ProtocolErrorCode.BAD_FIELD });
      const before = logged.length;
      expect(before).toBeLessThan(4_096);
      expect(logged).not.toContain('NNNNNNNNNN');

      const rec = record(s);
      s.emit(ClientEvent.HELLO, { name: 'app', type: 'consumer' });
      s.emit(ClientEvent.HELLO);
      await sync(s);
      expect(rec.names()).toEqual([]);
      expect(logged).toMatch(/"name":"app","type":"consumer".*"msg":"HELLO"/);
    } finally {
      s?.close();
      await broker.close();
    }
  });
});
