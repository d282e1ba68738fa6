/**
 * The bundled `/remote` namespace (`spec/protocol-admin.md` §16.2 with its hardening): tickets
 * from `REMOTE_TICKET_REQUEST` on `/`, single use, real TTL in `expires_in`, sessions keyed by
 * (realm, session_id), the relay rule table, reserved names never relayed, acks stripped.
 */
import { io, type Socket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import {
  ClientEvent,
  RemoteErrorText,
  RemoteEvent,
  ServerEvent,
  type RemoteTicketReply,
} from '../../../shared/protocol-events';
import pino from 'pino';
import { Server } from 'socket.io';
import { attachRemote } from '../../../broker/namespaces/remote/remote-namespace';
import { TicketStore } from '../../../broker/namespaces/remote/ticket-store';
import type { BrokerServer } from '../../../broker/transport/socket-types';
import { startBroker, type Harness } from '../../helpers/broker-harness';
import { expectNothing, waitFor, waitUntil } from '../../helpers/wait';

type Ok = Extract<RemoteTicketReply, { ok: true }>;

async function withBroker(settings: object, fn: (h: Harness) => Promise<void>) {
  const h = await startBroker(settings);
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

async function remote(h: Harness): Promise<Socket> {
  const s = io(`${h.url}/remote`, {
    forceNew: true,
    reconnection: false,
    transports: ['websocket'],
  });
  h.onClose(() => void s.disconnect());
  await new Promise<void>((resolve) => s.once('connect', () => resolve()));
  return s;
}

async function ticket(h: Harness, body: object): Promise<Ok> {
  const s = await h.connect();
  const event = waitFor<RemoteTicketReply>(s, ServerEvent.REMOTE_TICKET);
  const reply = (await s.emitWithAck(ClientEvent.REMOTE_TICKET_REQUEST, body)) as RemoteTicketReply;
  expect(await event).toEqual(reply); // ack and event both
  if (!reply.ok) throw new Error(reply.message);
  return reply;
}

async function join(h: Harness, t: Ok, extra: object = {}): Promise<Socket> {
  const s = await remote(h);
  const ok = waitFor(s, RemoteEvent.AUTH_OK);
  s.emit(RemoteEvent.AUTH, { ticket: t.ticket, ...extra });
  expect(await ok).toEqual({ session_id: t.session_id, role: t.role });
  return s;
}

describe('/remote (§16.2)', () => {
  it('relays between agent and viewers of one session per the rule table', async () => {
    await withBroker({ remote: { ticket_ttl_ms: 120_000 } }, async (h) => {
      const agentTicket = await ticket(h, { role: 'agent', session_id: 'sess-1' });
      expect(agentTicket).toMatchObject({ ok: true, role: 'agent', expires_in: 120 });
      expect(agentTicket.ticket).toMatch(/^[0-9a-f]{32}$/);
      const viewerTicket = await ticket(h, { role: 'viewer', sessionId: 'sess-1' });
      const otherTicket = await ticket(h, { role: 'viewer', session_id: 'sess-2' });
      const agent = await join(h, agentTicket);
      const viewer = await join(h, viewerTicket, { session_id: 'sess-1', role: 'viewer' });
      const stranger = await join(h, otherTicket);

      const frame = waitFor(viewer, 'frame');
      agent.emit('frame', { frame: 'AAAA' });
      // The legacy base64 form arrives decoded, as binary (§16.2).
      expect(await frame).toEqual(Buffer.from([0, 0, 0]));
      const strangerQuiet = expectNothing(stranger, 'frame');
      await strangerQuiet;

      // viewer → agent; a viewer may not send `frame` (agent-only), and acks are stripped.
      const mouse = new Promise<unknown[]>((resolve) =>
        agent.once('input.mouse', (...a) => resolve(a)),
      );
      viewer.emit('input.mouse', { x: 1 }, () => undefined);
      expect(await mouse).toEqual([{ x: 1 }]);
      const noFrame = expectNothing(agent, 'frame');
      viewer.emit('frame', { frame: 'fake' });
      await noFrame;
      // Unlisted events go to the opposite side; reserved names never relay.
      const custom = waitFor(viewer, 'custom.thing');
      agent.emit('custom.thing', 7);
      expect(await custom).toBe(7);
      const noAuthOk = expectNothing(viewer, RemoteEvent.AUTH_OK);
      agent.emit(RemoteEvent.AUTH_OK, { forged: true });
      await noAuthOk;
    });
  });

  it("an older agent's {frame: <base64>} reaches viewers as a binary frame (Buffer)", async () => {
    await withBroker({}, async (h) => {
      const agent = await join(h, await ticket(h, { role: 'agent', session_id: 'f' }));
      const viewer = await join(h, await ticket(h, { role: 'viewer', session_id: 'f' }));
      const bytes = Buffer.from(Array.from({ length: 256 }, (_v, i) => i));
      const frames: unknown[][] = [];
      viewer.on('frame', (...args: unknown[]) => frames.push(args));
      agent.emit('frame', { frame: bytes.toString('base64') });
      // A current agent sends the bytes themselves; both reach viewers the same way.
      agent.emit('frame', new Uint8Array(bytes));
      // A non-string `frame` is String()-ed and decoded (§8 rule 3); other properties dropped.
      agent.emit('frame', { frame: 123, note: 'dropped' });
      await waitUntil(() => frames.length === 3, 'three frames');
      expect(Buffer.isBuffer(frames[0]![0])).toBe(true);
      expect(frames[0]).toEqual([bytes]);
      expect(frames[1]).toEqual([bytes]);
      expect(frames[2]).toEqual([Buffer.from([0xd7, 0x6d])]);
    });
  });

  it('§8: the legacy frame rule — first argument only, lenient base64, the rest dropped', async () => {
    const settings = {
      remote: { relay: { snap: { from: 'agent', to: 'viewers', binary: true } } },
    };
    await withBroker(settings, async (h) => {
      const agent = await join(h, await ticket(h, { role: 'agent', session_id: 'l' }));
      const viewer = await join(h, await ticket(h, { role: 'viewer', session_id: 'l' }));
      const got: unknown[][] = [];
      viewer.on('frame', (...args: unknown[]) => got.push(args));
      viewer.on('snap', (...args: unknown[]) => got.push(args));
      const sent: Array<[string, unknown]> = [
        ['AAEC', [0, 1, 2]],
        ['AA EC', [0, 1, 2]],
        ['AA$EC', [0, 1, 2]],
        ['AAEC\n', [0, 1, 2]],
        ['-_8=', [0xfb, 0xff]],
        ['+/8=', [0xfb, 0xff]],
        ['AAE', [0, 1]],
        ['AA==AA', [0]],
        ['A', []],
      ];
      for (const [frame] of sent) agent.emit('frame', { session_id: 'l', frame, ts: 1 });
      // Dropped silently: nothing, a string, a number, no `frame`, falsy `frame`s.
      for (const bad of [
        undefined,
        'AAEC',
        7,
        { x: 1 },
        { frame: '' },
        { frame: 0 },
        { frame: null },
      ]) {
        if (bad === undefined) agent.emit('frame');
        else agent.emit('frame', bad);
      }
      // Only the first argument counts; an ack is never called.
      agent.emit('frame', { frame: 'AAEC' }, Buffer.from([9]), () => got.push(['acked']));
      // Note 8-A: a binary `frame` is forwarded unchanged, not decoded as text.
      agent.emit('frame', { frame: Buffer.from([0xff, 0xfe, 0x00]) });
      // Any binary rule follows it, not only `frame`.
      agent.emit('snap', { frame: 'AAEC', keep: 1 });
      agent.emit('snap', Buffer.from([5, 6]), 'extra');
      await waitUntil(() => got.length === sent.length + 4, 'every frame');
      const bytes = (b: number[]) => [Buffer.from(b)];
      expect(got).toEqual([
        ...sent.map(([, b]) => bytes(b as number[])),
        bytes([0, 1, 2]),
        bytes([0xff, 0xfe, 0x00]),
        bytes([0, 1, 2]),
        bytes([5, 6]),
      ]);
    });
  });

  it('a frame rule without `binary` relays the JSON form unchanged', async () => {
    await withBroker(
      { remote: { relay: { frame: { from: 'agent', to: 'viewers', binary: false } } } },
      async (h) => {
        const agent = await join(h, await ticket(h, { role: 'agent', session_id: 'g' }));
        const viewer = await join(h, await ticket(h, { role: 'viewer', session_id: 'g' }));
        const frame = waitFor(viewer, 'frame');
        agent.emit('frame', { frame: 'AAAA' });
        expect(await frame).toEqual({ frame: 'AAAA' });
      },
    );
  });

  it('tickets are single use; bogus and mismatched tickets are refused', async () => {
    await withBroker({ remote: { relay_unlisted: 'off' } }, async (h) => {
      const t = await ticket(h, { role: 'viewer', session_id: 's' });
      expect(t.expires_in).toBe(60);
      await join(h, t);
      for (const [auth, message] of [
        [{ ticket: t.ticket }, RemoteErrorText.INVALID_TICKET], // reused
        [{ ticket: 'f'.repeat(32) }, RemoteErrorText.INVALID_TICKET],
        [{}, RemoteErrorText.INVALID_TICKET],
      ] as const) {
        const s = await remote(h);
        const err = waitFor(s, RemoteEvent.AUTH_ERROR);
        const gone = new Promise((resolve) => s.once('disconnect', resolve));
        s.emit(RemoteEvent.AUTH, auth);
        expect(await err).toEqual({ message });
        await gone;
      }
      const a = await ticket(h, { role: 'agent', session_id: 's' });
      const s1 = await remote(h);
      const e1 = waitFor(s1, RemoteEvent.AUTH_ERROR);
      s1.emit(RemoteEvent.AUTH, { ticket: a.ticket, session_id: 'other' });
      expect(await e1).toEqual({ message: RemoteErrorText.SESSION_MISMATCH });
      const b = await ticket(h, { role: 'agent', session_id: 's' });
      const s2 = await remote(h);
      const e2 = waitFor(s2, RemoteEvent.AUTH_ERROR);
      s2.emit(RemoteEvent.AUTH, { ticket: b.ticket, role: 'viewer' });
      expect(await e2).toEqual({ message: RemoteErrorText.ROLE_MISMATCH });
      // A bad session id is refused on / with the FAIL event.
      const c = await h.connect();
      const fail = waitFor(c, ServerEvent.REMOTE_TICKET_FAIL);
      c.emit(ClientEvent.REMOTE_TICKET_REQUEST, { session_id: { $ne: 1 } });
      expect(await fail).toMatchObject({ ok: false, code: 400 });
    });
  });

  it('keys sessions by (realm, session_id): a ticket reaches its realm only', async () => {
    const server: BrokerServer = new Server();
    const tickets = new TicketStore();
    attachRemote(server, tickets, () => ({}), pino({ level: 'silent' }));
    server.listen(0);
    const url = `http://127.0.0.1:${(server.httpServer.address() as { port: number }).port}/remote`;
    const sockets: Socket[] = [];
    const joinAs = async (realm: string, role: 'agent' | 'viewer') => {
      const t = tickets.issue(realm, 'same-id', role, 60_000, null);
      const s = io(url, { forceNew: true, reconnection: false, transports: ['websocket'] });
      sockets.push(s);
      const ok = waitFor(s, RemoteEvent.AUTH_OK);
      s.emit(RemoteEvent.AUTH, { ticket: t.ticket });
      await ok;
      return s;
    };
    try {
      const agentA = await joinAs('alpha', 'agent');
      const viewerA = await joinAs('alpha', 'viewer');
      const viewerB = await joinAs('beta', 'viewer');
      const got = waitFor(viewerA, 'frame');
      const quiet = expectNothing(viewerB, 'frame');
      agentA.emit('frame', { frame: 'eA==' });
      expect(await got).toEqual(Buffer.from('x'));
      await quiet;
    } finally {
      for (const s of sockets) s.disconnect();
      tickets.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
