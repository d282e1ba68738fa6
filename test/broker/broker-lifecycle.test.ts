/**
 * The embedding API the brief specifies (`createBroker`, `listen(0)`, `getStats`, `close`), checked
 * only where the protocol depends on it: `close()` must disconnect every client — including a
 * half-open one (Note 5.2-A's situation) — rather than wait for it.
 */
import { describe, expect, it } from 'vitest';
import { freeze, startBroker, waitForServerDisconnect } from '../helpers/broker-harness';
import { delay } from '../helpers/wait';

describe('broker lifecycle', () => {
  it('listens on an ephemeral port and reports an empty default realm', async () => {
    const h = await startBroker();
    try {
      expect(h.port).toBeGreaterThan(0);
      expect(h.rawStats().connections_current).toBe(0);
      expect(h.stats()).toEqual({
        producers: { total: 0, online: 0 },
        consumers: { total: 0, online: 0 },
        subscriptions: 0,
      });
    } finally {
      await h.close();
    }
  });

  it('close() disconnects connected clients', async () => {
    const h = await startBroker();
    const s = await h.connect();
    const gone = waitForServerDisconnect(s);
    await h.broker.close();
    expect(await gone).toMatch(/io server disconnect|transport close/);
    await h.close().catch(() => undefined);
  });

  it('close() does not wait for a half-open client (no 30 s WebSocket close handshake)', async () => {
    const h = await startBroker();
    const s = await h.connect();
    const destroy = freeze(s);
    // A liveness bound, not a performance measurement: ws waits 30 s for a silent peer's close
    // frame; a broker that only calls io.close() hangs that long on shutdown.
    const closed = h.broker.close().then(() => 'closed' as const);
    const outcome = await Promise.race([
      closed,
      delay(10_000).then(() => 'still waiting' as const),
    ]);
    destroy();
    await closed;
    await h.close().catch(() => undefined); // the client sockets
    expect(outcome).toBe('closed');
  }, 60_000);
});
