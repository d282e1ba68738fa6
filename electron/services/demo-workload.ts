/**
 * Demo mode: a small simulated workload against the local broker, in its own realm, so every
 * console view has live data with no network (issue 13; one of our three user groups gives
 * offline demos).
 *
 * Start: the realm `DEMO_REALM` is created (ephemeral, 6 h, so a console killed mid-demo leaves
 * nothing behind for long) with a fresh manager key; the clients log in with HS256 JWTs signed
 * by that key (`spec/protocol-admin.md` §4.2, per-realm JWT). Then: three producers on a few
 * topics, a fast consumer (ACKs at once), a slow one (ACKs after 1.5 s), a stuck one that never
 * ACKs (so its messages are dead-lettered, §10.2), and a client asking for authorization (§7.1,
 * left pending for the Requests view). Stop: every socket closed, the realm removed
 * (`remove_realm` purges its tokens, queues, DLQ and requests, §9.4).
 *
 * The demo's clients live in this process, so a demo never outlives its console: `stop()` runs
 * when the console closes (before the local broker stops), and `removeLeftover()` when the local
 * broker comes up, for a realm left by a console that was killed. The manager it is given is the
 * console's own (audit origin `console`): set-up and clean-up are not the operator's commands.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { io, type Socket } from 'socket.io-client';
import type { DemoStatus } from '../../shared/console-api-local';
import { SwitchboardError } from '../../shared/error-catalogue';
import {
  ClientEvent,
  Protocol,
  ServerEvent,
  anyProducerKey,
  consumeEvent,
  subscriptionKey,
  type DeliveryEnvelope,
} from '../../shared/protocol-events';
import type { ManagerClient } from './manager-client';
import { toRealmList } from './manager-pool';

/** The demo realm's name. */
export const DEMO_REALM = 'switchboard-demo';

/** Producers of the demo: name, topic, period in ms, guaranteed. */
const PRODUCERS = [
  { name: 'orders', event: 'demo/orders/created', everyMs: 500, guaranteed: false },
  { name: 'sensors', event: 'demo/sensors/temp', everyMs: 200, guaranteed: false },
  { name: 'jobs', event: 'demo/jobs/run', everyMs: 1_000, guaranteed: true },
] as const;

export interface DemoWorkloadOptions {
  connectionId: string;
  /** The local broker's URL, or null while it is not running. */
  url: () => string | null;
  manager: () => ManagerClient;
  onStatus: (status: DemoStatus) => void;
}

export class DemoWorkload {
  private sockets: Socket[] = [];
  private timers: NodeJS.Timeout[] = [];
  private running = false;
  private startedAt: number | null = null;
  private produced = 0;
  private consumed = 0;
  private acked = 0;
  private error: string | null = null;
  private busy: Promise<DemoStatus> | null = null;

  constructor(private readonly options: DemoWorkloadOptions) {}

  status(): DemoStatus {
    return {
      connectionId: this.options.connectionId,
      running: this.running,
      realm: DEMO_REALM,
      startedAt: this.startedAt,
      produced: this.produced,
      consumed: this.consumed,
      acked: this.acked,
      clients: this.sockets.filter((s) => s.connected).length,
      error: this.error,
    };
  }

  /** Starts the workload (a no-op while it runs). @throws SwitchboardError when the broker refuses. */
  start(): Promise<DemoStatus> {
    if (this.running) return Promise.resolve(this.status());
    return this.serial(async () => {
      if (this.running) return this.status();
      const url = this.options.url();
      if (!url) throw new SwitchboardError('SWB_ERR_BROKER_NOT_RUNNING');
      const manager = this.options.manager();
      const managerKey = randomBytes(32).toString('hex');
      await this.removeRealmIfPresent(manager);
      await manager.command({
        command: 'add_realm',
        realm: DEMO_REALM,
        manager_key: managerKey,
        ephemeral: true,
        ttl: '6h',
      });
      this.produced = this.consumed = this.acked = 0;
      this.error = null;
      this.running = true;
      this.startedAt = Date.now();
      try {
        const token = await new SignJWT({ realm: DEMO_REALM, role: 'both' })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setExpirationTime('6h')
          .sign(new TextEncoder().encode(managerKey));
        await Promise.all([
          this.consumer(url, token, 'fast-worker', { event: 'demo/#', mode: 'topic' }, 0),
          this.consumer(
            url,
            token,
            'slow-worker',
            { event: 'demo/jobs/run', producer: 'jobs' },
            1_500,
          ),
          this.consumer(
            url,
            token,
            'stuck-worker',
            { event: 'demo/orders/created', producer: 'orders' },
            null,
          ),
          ...PRODUCERS.map((p) => this.producer(url, token, p)),
          this.requester(url),
        ]);
      } catch (error) {
        await this.teardown();
        throw error instanceof SwitchboardError
          ? error
          : new SwitchboardError(
              'SWB_ERR_BROKER_UNREACHABLE',
              `Demo clients could not start: ${(error as Error).message}`,
            );
      }
      this.timers.push(setInterval(() => this.options.onStatus(this.status()), 1_000));
      return this.status();
    });
  }

  /** Stops every client and removes the demo realm. */
  stop(): Promise<DemoStatus> {
    return this.serial(async () => {
      await this.teardown();
      return this.status();
    });
  }

  /**
   * Removes a demo realm that no running demo of this console owns (one left by a console that
   * was killed): its clients are gone with that console, so it holds only stale queues, DLQ
   * entries and a pending request. Never throws; a failure is kept in `error`.
   */
  removeLeftover(): Promise<DemoStatus> {
    return this.serial(async () => {
      if (this.running) return this.status();
      try {
        // Inside the try: the console may be closing, and its connection gone (url() throws).
        if (!this.options.url()) return this.status();
        await this.removeRealmIfPresent(this.options.manager());
      } catch (error) {
        this.error = `Could not check for or remove a leftover demo realm: ${(error as Error).message}`;
      }
      return this.status();
    });
  }

  /** Closes every client now without removing the realm (last resort when stopping timed out). */
  abandon(): void {
    this.timers.forEach((timer) => clearInterval(timer));
    this.timers = [];
    this.sockets.forEach((socket) => socket.close());
    this.sockets = [];
    this.running = false;
  }

  private async teardown(): Promise<void> {
    this.timers.forEach((timer) => clearInterval(timer));
    this.timers = [];
    this.sockets.forEach((socket) => socket.close());
    this.sockets = [];
    const wasRunning = this.running;
    this.running = false;
    this.startedAt = null;
    if (wasRunning && this.options.url()) {
      await this.options
        .manager()
        .command({ command: 'remove_realm', realm: DEMO_REALM })
        .catch((error: Error) => {
          this.error = `The demo realm could not be removed: ${error.message}`;
        });
    }
    this.options.onStatus(this.status());
  }

  /** `remove_realm` only when the broker lists the realm (`get` is a read, not audited). */
  private async removeRealmIfPresent(manager: ManagerClient): Promise<void> {
    const reply = await manager.command({ command: 'get' });
    const { realms } = toRealmList(this.options.connectionId, reply.settings);
    if (!realms.some((realm) => realm.name === DEMO_REALM)) return;
    await manager.command({ command: 'remove_realm', realm: DEMO_REALM }).catch((error) => {
      // Gone in between: what we wanted.
      if (!(error instanceof SwitchboardError && error.code === 'SWB_ERR_NOT_FOUND')) throw error;
    });
  }

  private serial(run: () => Promise<DemoStatus>): Promise<DemoStatus> {
    const previous = this.busy ?? Promise.resolve(this.status());
    const next = previous.catch(() => this.status()).then(run);
    this.busy = next.catch(() => this.status());
    this.options.onStatus(this.status());
    return next.finally(() => this.options.onStatus(this.status()));
  }

  private async connect(url: string, token: string | null): Promise<Socket> {
    const base = new URL(url);
    const socket = io(base.origin, {
      path: `${base.pathname.replace(/\/+$/, '')}/socket.io`,
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
    });
    this.sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    if (token === null) return socket;
    await new Promise<void>((resolve, reject) => {
      socket.once(ServerEvent.AUTH_OK, () => resolve());
      socket.once(ServerEvent.AUTH_FAIL, (reply: { message?: string }) =>
        reject(
          new SwitchboardError(
            'SWB_ERR_UNAUTHORIZED',
            `Demo login refused: ${reply?.message ?? ''}`,
          ),
        ),
      );
      socket.emit(ClientEvent.AUTHENTICATION, { token, realm: DEMO_REALM });
    });
    return socket;
  }

  private async producer(
    url: string,
    token: string,
    spec: (typeof PRODUCERS)[number],
  ): Promise<void> {
    const socket = await this.connect(url, token);
    socket.emit(ClientEvent.PRODUCER, { name: spec.name });
    let n = 0;
    this.timers.push(
      setInterval(() => {
        if (!socket.connected) return;
        n += 1;
        socket.emit(ClientEvent.PRODUCE, {
          event: spec.event,
          from: spec.name,
          message: demoMessage(spec.name, n),
          ...(spec.guaranteed ? { guaranteed: true } : {}),
        });
        this.produced += 1;
      }, spec.everyMs),
    );
  }

  /** A consumer that ACKs after `ackDelayMs`, or never (null). */
  private async consumer(
    url: string,
    token: string,
    name: string,
    target: { event: string; producer?: string; mode?: 'topic' },
    ackDelayMs: number | null,
  ): Promise<void> {
    const socket = await this.connect(url, token);
    const producer = target.producer ?? Protocol.ALL_PUBLISHERS;
    const key = target.mode
      ? anyProducerKey(target.event)
      : subscriptionKey(producer, target.event);
    socket.on(consumeEvent(key), (envelope: DeliveryEnvelope & { msgId?: string }) => {
      this.consumed += 1;
      const msgId = envelope?.msgId;
      if (!msgId || ackDelayMs === null) return;
      const ack = (): void => {
        if (!socket.connected) return;
        socket.emit(ClientEvent.ACK, { msgId });
        this.acked += 1;
      };
      if (ackDelayMs === 0) ack();
      else setTimeout(ack, ackDelayMs).unref();
    });
    socket.emit(ClientEvent.CONSUMER, { name, id: name, consumer_id: name });
    socket.emit(ClientEvent.SUBSCRIBE, {
      event: target.event,
      producer,
      consumer: name,
      consumer_id: name,
      durable: true,
      ack: true,
      ack_timeout: ackDelayMs === null ? '1s' : '10s',
      retry: { max_attempts: 2, delay: '500ms' },
      ...(target.mode ? { mode: target.mode } : {}),
    });
  }

  /** A kiosk asking to join the demo realm: its request stays pending. */
  private async requester(url: string): Promise<void> {
    const socket = await this.connect(url, null);
    const reply = (await socket.timeout(5_000).emitWithAck(ClientEvent.AUTHORIZATION_REQUEST, {
      realm: DEMO_REALM,
      role: 'consumer',
      client_id: 'demo-kiosk-07',
      client_name: 'Demo kiosk 07',
      client_token: randomBytes(24).toString('hex'),
      challenge_response: { site: 'Demo lab', ticket: 'DEMO-1' },
    })) as { ok?: boolean; message?: string };
    if (!reply?.ok) {
      throw new SwitchboardError(
        'SWB_ERR_INTERNAL',
        `Demo authorization request refused: ${reply?.message ?? ''}`,
      );
    }
  }
}

function demoMessage(producer: string, n: number): unknown {
  switch (producer) {
    case 'orders':
      return { order: `A-${1000 + n}`, items: (n % 4) + 1, total: Math.round((n * 7.3) % 200) };
    case 'sensors':
      return { sensor: `t-${n % 5}`, celsius: Math.round((20 + Math.sin(n / 10) * 4) * 10) / 10 };
    default:
      return { job: `job-${n}`, action: n % 2 ? 'resize' : 'thumbnail' };
  }
}
