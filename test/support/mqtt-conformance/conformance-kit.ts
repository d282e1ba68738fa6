/**
 * The building blocks of the MQTT conformance set (issue 24): a target (any MQTT broker on
 * host:port, with or without credentials), a case shape, and a per-case scope that opens
 * MQTT.js clients and raw mqtt-packet connections and closes every one of them when the case
 * ends, whatever its outcome. Nothing here knows Switchboard: the same cases run against
 * Mosquitto in `bench/scenarios/mqtt-conformance.ts`.
 *
 * Modelled on the Eclipse Paho interoperability suites (paho.mqtt.testing
 * `interoperability/client_test.py` for 3.1.1, `client_test5.py` for 5).
 */
import { randomBytes } from 'node:crypto';
import { connect as tcpConnect, type Socket } from 'node:net';
import {
  connect,
  type IClientOptions,
  type IClientPublishOptions,
  type IConnackPacket,
  type IPublishPacket,
  type MqttClient,
} from 'mqtt';
import { generate, parser as mqttParser, type Packet } from 'mqtt-packet';
import { packet, str, u16 } from '../../helpers/mqtt-bytes';

/** CONNECT credentials a target wants (both absent: anonymous). */
export interface Credentials {
  username?: string;
  password?: string;
}

/** A broker under test. */
export interface ConformanceTarget {
  readonly host: string;
  readonly port: number;
  /** Credentials for a client; `clientSuffix` is the client's role in the case (e.g. `pub`). */
  credentials(clientSuffix: string): Credentials;
  /**
   * Credentials whose SUBSCRIBE the broker refuses (Paho's `test/nosubscribe` configuration);
   * absent: `subscribe_failure` is skipped.
   */
  readonly subscribeRefused?: { credentials: Credentials; filter: string };
}

/** One conformance case; `run` throws (an `Error`, or a `Skipped`) unless the broker passes. */
export interface ConformanceCase {
  readonly name: string;
  readonly version: 4 | 5;
  /** `switchboard`: asserts Switchboard's documented policy, not an MQTT requirement. */
  readonly policy?: 'switchboard';
  run(target: ConformanceTarget): Promise<void>;
}

/** Thrown by a case that cannot run against this target (a feature it does not offer). */
export class Skipped extends Error {
  override readonly name = 'Skipped';
}

/** Longest wait of one step (a message, an ack, a close), ms. */
export const STEP_MS = 4_000;
/** "Nothing arrives" windows, ms. */
export const QUIET_MS = 300;

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` every 10 ms; throws naming `what` after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = STEP_MS) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await delay(10);
  }
}

export function check(ok: unknown, what: string): asserts ok {
  if (!ok) throw new Error(what);
}

export function equal(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

/** A message as a case sees it. */
export interface Received {
  topic: string;
  text: string;
  qos: number;
  retain: boolean;
  packet: IPublishPacket;
}

/** A connected MQTT.js client that records every message it receives. */
export interface Client {
  readonly mqtt: MqttClient;
  readonly got: Received[];
  /** The CONNACK (session present, MQTT 5 properties). */
  readonly connack: IConnackPacket;
  /** Resolves once `n` messages arrived in total. */
  count(n: number, what?: string): Promise<Received[]>;
}

/** A raw connection: mqtt-packet packets out, every parsed packet in, in order. */
export interface Raw {
  readonly socket: Socket;
  readonly seen: Packet[];
  readonly closed: () => boolean;
  /** Sends a packet (generated for the scope's version) or hand-made bytes. */
  send(p: Packet | Buffer): void;
  of<T = Packet>(cmd: Packet['cmd']): T[];
  wait(check: (seen: Packet[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
}

/** Opens clients for one case and closes them all in `close()`. */
export class Scope {
  /** Unique per case run: prefix of every topic and client id. */
  readonly id = `c${randomBytes(4).toString('hex')}`;
  private readonly closers: (() => Promise<void> | void)[] = [];

  constructor(
    readonly target: ConformanceTarget,
    readonly version: 4 | 5,
  ) {}

  /** A topic of this run: `<id>/<name>`. */
  topic(name: string): string {
    return `${this.id}/${name}`;
  }

  /** A client id of this run. */
  clientId(name: string): string {
    return `${this.id}-${name}`;
  }

  /** MQTT.js options for client `name` (credentials from the target). */
  options(name: string, extra: IClientOptions = {}): IClientOptions {
    return {
      protocolVersion: this.version,
      clientId: this.clientId(name),
      reconnectPeriod: 0,
      connectTimeout: STEP_MS,
      ...this.target.credentials(name),
      ...extra,
    };
  }

  /** Connects client `name` (resolves on CONNACK 0, rejects on a refusal). */
  async client(name: string, extra: IClientOptions = {}): Promise<Client> {
    const mqtt = connect(
      `mqtt://${this.target.host}:${this.target.port}`,
      this.options(name, extra),
    );
    mqtt.on('error', () => {});
    this.closers.push(() => mqtt.endAsync(true).catch(() => {}));
    const got: Received[] = [];
    mqtt.on('message', (topic, payload, packet) =>
      got.push({
        topic,
        text: payload.toString('utf8'),
        qos: packet.qos,
        retain: packet.retain,
        packet,
      }),
    );
    const connack = await new Promise<IConnackPacket>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no CONNACK`)), STEP_MS);
      mqtt.once('connect', (ack) => (clearTimeout(timer), resolve(ack)));
      mqtt.once('error', (err) => (clearTimeout(timer), reject(err)));
      mqtt.once('close', () => (clearTimeout(timer), reject(new Error(`${name}: closed`))));
    });
    return {
      mqtt,
      got,
      connack,
      async count(n, what = `${n} messages for ${name}`) {
        await until(() => got.length >= n, `${what} (got ${got.length})`);
        return got.slice(0, n);
      },
    };
  }

  /** Publishes and resolves once the broker acknowledged it (QoS 1/2) or it was written. */
  async publish(c: Client, topic: string, text: string | Buffer, opts: IClientPublishOptions = {}) {
    await withTimeout(c.mqtt.publishAsync(topic, text, opts), `PUBLISH ${topic}`);
  }

  /**
   * Opens a raw TCP connection and sends CONNECT (credentials from the target; `connect`
   * overrides fields, or is the CONNECT's bytes, for what mqtt-packet will not generate).
   */
  async raw(
    name: string,
    connect: Record<string, unknown> | Buffer = {},
    waitConnack = true,
  ): Promise<Raw> {
    const version = this.version;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = tcpConnect(this.target.port, this.target.host, () => resolve(s));
      s.once('error', reject);
    });
    socket.on('error', () => {});
    this.closers.push(() => void socket.destroy());
    let isClosed = false;
    socket.once('close', () => (isClosed = true));
    const seen: Packet[] = [];
    const p = mqttParser({ protocolVersion: version });
    p.on('packet', (packet) => seen.push(packet));
    p.on('error', () => {});
    socket.on('data', (chunk) => p.parse(chunk));
    const raw: Raw = {
      socket,
      seen,
      closed: () => isClosed,
      send: (packet) =>
        void socket.write(
          Buffer.isBuffer(packet) ? packet : generate(packet, { protocolVersion: version }),
        ),
      of: <T>(cmd: Packet['cmd']) => seen.filter((x) => x.cmd === cmd) as T[],
      wait: (ok, what, timeoutMs) => until(() => ok(seen), what, timeoutMs),
    };
    raw.send(
      Buffer.isBuffer(connect)
        ? connect
        : ({
            cmd: 'connect',
            protocolId: 'MQTT',
            protocolVersion: version,
            clean: true,
            clientId: this.clientId(name),
            keepalive: 60,
            ...this.target.credentials(name),
            ...connect,
          } as Packet),
    );
    if (waitConnack) {
      await raw.wait((s) => s.some((x) => x.cmd === 'connack'), `${name}: CONNACK`);
      const ack = raw.of<{ returnCode?: number; reasonCode?: number }>('connack')[0];
      const code = ack?.returnCode ?? ack?.reasonCode ?? 0;
      if (code !== 0) throw new Error(`${name}: CONNACK refused with ${code}`);
    }
    return raw;
  }

  /** CONNECT bytes with an empty Client Identifier (mqtt-packet refuses one with clean 0). */
  emptyIdConnect(clean: boolean): Buffer {
    const { username, password } = this.target.credentials('empty');
    const flags =
      (username !== undefined ? 0x80 : 0) |
      (password !== undefined ? 0x40 : 0) |
      (clean ? 0x02 : 0);
    const body = Buffer.concat([
      str('MQTT'),
      Buffer.from([this.version, flags]),
      u16(60),
      ...(this.version === 5 ? [Buffer.from([0])] : []), // no properties
      str(''),
      ...(username !== undefined ? [str(username)] : []),
      ...(password !== undefined ? [str(password)] : []),
    ]);
    return packet(0x10, body);
  }

  async close(): Promise<void> {
    for (const fn of this.closers.splice(0).reverse()) await fn();
  }
}

export async function withTimeout<T>(p: Promise<T>, what: string, ms = STEP_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

/** Destroys a client's TCP socket without DISCONNECT (an abnormal close: its will is due). */
export function killSocket(c: Client): void {
  (c.mqtt.stream as Socket).destroy();
}

/** Defines a case whose body gets a fresh `Scope`, closed afterwards; bounded to `limitMs`. */
export function defineCase(
  name: string,
  version: 4 | 5,
  body: (s: Scope) => Promise<void>,
  opts: { policy?: 'switchboard'; limitMs?: number } = {},
): ConformanceCase {
  return {
    name,
    version,
    ...(opts.policy ? { policy: opts.policy } : {}),
    async run(target) {
      const scope = new Scope(target, version);
      try {
        await withTimeout(body(scope), `case ${name}`, opts.limitMs ?? 12_000);
      } finally {
        await scope.close();
      }
    },
  };
}

/** Outcome of one case on one target. */
export type Outcome = 'pass' | `fail(${string})` | `skipped(${string})`;

export async function runCase(c: ConformanceCase, target: ConformanceTarget): Promise<Outcome> {
  try {
    await c.run(target);
    return 'pass';
  } catch (err) {
    const msg = (err as Error)?.message ?? String(err);
    return err instanceof Skipped ? `skipped(${msg})` : `fail(${msg})`;
  }
}
