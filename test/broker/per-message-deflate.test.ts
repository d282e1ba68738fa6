/**
 * `per_message_deflate` (issue 7): the WebSocket compression extension is declined by default,
 * accepted with the reference's settings for `true` (spec §1.1) or with a custom threshold, and
 * stock clients work either way. Invalid values are refused with the key's path.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseSettings } from '../../broker/config/load-settings';
import {
  perMessageDeflateOptions,
  REFERENCE_PER_MESSAGE_DEFLATE,
} from '../../broker/transport/socket-options';
import {
  exactConsumeEvent,
  produce,
  startBroker,
  subscribe,
  type BrokerSettings,
} from '../helpers/broker-harness';
import { waitFor } from '../helpers/wait';

/** The extensions a raw WebSocket client offering permessage-deflate gets accepted. */
async function negotiated(settings: BrokerSettings): Promise<string> {
  const h = await startBroker(settings);
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${h.port}/socket.io/?EIO=4&transport=websocket`, {
      perMessageDeflate: true,
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const extensions = ws.extensions;
    ws.terminate();
    return extensions;
  } finally {
    await h.close();
  }
}

describe('per_message_deflate setting', () => {
  it('is off by default: the extension is declined', async () => {
    expect(parseSettings({}).per_message_deflate).toBe(false);
    expect(await negotiated({})).toBe('');
  });

  it('true accepts the extension with the reference settings (§1.1)', async () => {
    expect(perMessageDeflateOptions(true)).toBe(REFERENCE_PER_MESSAGE_DEFLATE);
    expect(await negotiated({ per_message_deflate: true })).toMatch(/permessage-deflate/);
  });

  it('an object sets threshold and zlib options over the reference settings', () => {
    const options = perMessageDeflateOptions({
      threshold: 512,
      zlib_deflate_options: { level: 1, chunk_size: 16_384 },
    });
    expect(options).toMatchObject({
      threshold: 512,
      zlibDeflateOptions: { level: 1, chunkSize: 16_384 },
      zlibInflateOptions: { windowBits: 14, memLevel: 7 },
      serverMaxWindowBits: 10,
    });
  });

  it('refuses invalid values naming the key', () => {
    expect(() => parseSettings({ per_message_deflate: { threshold: -1 } })).toThrow(
      /per_message_deflate/,
    );
    expect(() =>
      parseSettings({ per_message_deflate: { zlib_deflate_options: { level: 12 } } }),
    ).toThrow(/per_message_deflate/);
    expect(() => parseSettings({ per_message_deflate: { thresold: 10 } })).toThrow(
      /per_message_deflate/,
    );
    expect(() => parseSettings({ per_message_deflate: 'on' })).toThrow(/per_message_deflate/);
  });

  it.each([false, { threshold: 0 }])(
    'a stock client exchanges 4 KiB messages with per_message_deflate %j',
    async (setting) => {
      const h = await startBroker({ per_message_deflate: setting });
      try {
        const producer = await h.producer('fleet', { transport: 'polling-upgrade' });
        const consumer = await h.consumer('w', { transport: 'polling-upgrade' });
        await subscribe(consumer, 'w', 'fleet', 'job');
        const message = 'z'.repeat(4096);
        const got = waitFor<{ message: string }>(consumer, exactConsumeEvent('fleet', 'job'));
        produce(producer, 'fleet', 'job', message);
        expect((await got).message).toBe(message);
      } finally {
        await h.close();
      }
    },
  );
});
