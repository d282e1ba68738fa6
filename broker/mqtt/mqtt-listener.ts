/**
 * The MQTT listener (issue 14): one aedes instance served over TCP (or TLS when `mqtt.tls` is
 * set) and optionally MQTT over WebSocket (`mqtt.ws_port`, `mqtt.ws_path`), with Switchboard's
 * auth (mqtt-auth.ts) and routing (mqtt-bridge.ts). Started by the broker's `listen()`, closed by
 * its `close()`. Sessions and retained messages are kept in the message store when it can keep
 * them (`MessageStore.mqttState`, the SQLite store; stored-persistence.ts), else in aedes'
 * in-memory persistence.
 */
import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import type { Aedes, AedesOptions, AuthenticateError, Client } from 'aedes';
import type { WebSocketServer } from 'ws';
import type { ClientMqtt } from '../../shared/http-api';
import type { AuthState } from '../auth/auth-state';
import type { ClientBans } from '../auth/client-bans';
import type { SessionCredential } from '../auth/session-credential';
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { MqttStateStore } from '../storage/mqtt-state';
import { notAuthorized, type MqttAuth } from './mqtt-auth';
import type { MqttIdentity } from './mqtt-identity';
import type { MqttBridge } from './mqtt-bridge';
import { authorizePublishHook } from './authorize-publish';
import { describeMqttClient, type MqttClientFacts } from './mqtt-client-list';
import type { MqttLimits } from './mqtt-limits';
import { announcePresence, publishPresence } from './mqtt-presence';
import {
  closeRealmClients,
  closeRealmClientsForRename,
  purgeStoredRealm,
} from './mqtt-realm-purge';
import { guardConnection } from './connection-guards';
import { OutboundLimits } from './outbound-limits';
import { watchMqttRevocations } from './mqtt-revocation';
import type { MqttSettings } from './mqtt-schema';
import { bindMqttTransports, type VerifyWebSocket } from './mqtt-transports';
import { cleanIncomingOfCleanSessions, mqtt5Options } from './mqtt5-options';
import { ReceiveMaximumGuard } from './receive-maximum-guard';
import { enforceStoredSessionExpiry } from './session-expiry-persistence';
import { SharedSubscriptions } from './shared-subscriptions';
import { restoredWillIdentity } from './packet-codec';
import { StoredPersistence } from './stored-persistence';
import { WillRefusals } from './will-refusals';
import type { MqttClientRecords } from '../clients/mqtt-client-records';

/** What the listener shares with the rest of the broker (all optional for tests). */
export interface MqttListenerOptions {
  /** Where sessions and retained messages survive restarts; undefined = in memory. */
  state?: MqttStateStore;
  /** Connection limits and publish rates (mqtt-limits.ts). */
  limits?: MqttLimits;
  /** Connections and deliveries counted with the socket.io ones. */
  metrics?: BrokerMetrics;
  /** aedes' heartbeat, ms (restored wills are swept every 4); default aedes' 60,000. */
  heartbeatInterval?: number;
  /**
   * The broker's request policy for WebSocket upgrades (`http/request-policy.ts`: Host
   * and Origin, issue 19); refused upgrades get 403. Undefined = every upgrade accepted.
   */
  verifyWebSocket?: VerifyWebSocket;
}

type AuthenticateHook = NonNullable<AedesOptions['authenticate']>;

/** CONNACK 3.1.1 return code 3 "server unavailable" (a connection limit refused the client). */
const SERVER_UNAVAILABLE = 3;

/** Where the listener is bound; `wsPort` null without a WebSocket listener. */
export interface MqttBound {
  port: number;
  host: string;
  wsPort: number | null;
}

export class MqttListener {
  private aedes: Aedes | null = null;
  private server: Server | null = null;
  private wss: WebSocketServer | null = null;
  private stopBridge: (() => void) | null = null;
  private stopRevocations: (() => void) | null = null;
  private persistence: StoredPersistence | null = null;
  private boundAt: MqttBound | null = null;
  /** False once a stop refuses new connections (`stopAccepting`). */
  private accepting = true;
  /** The TCP server's close, once `stopAccepting` started it (it ends with its last client). */
  private serverClosed: Promise<void> | null = null;
  private readonly clientsByRealm = new Map<string, Set<Client>>();
  /** CONNECT usernames (set at authenticate) and admission times, for the client list. */
  private readonly facts = new WeakMap<Client, MqttClientFacts>();
  /** Per-connection records and history (`client_detail`, issue 27); set before `listen`. */
  records: MqttClientRecords | null = null;
  /** Client ids a manager blocked (`close_client` with `block_seconds`); set before `listen`. */
  bans: ClientBans | null = null;

  constructor(
    private readonly authState: AuthState,
    private readonly auth: MqttAuth,
    private readonly bridge: MqttBridge,
    private readonly logger: Logger,
    private readonly options: MqttListenerOptions = {},
  ) {}

  /**
   * The CONNACK refusal of an identity a manager blocked (not authorized: 0x87 on MQTT 5, 5 on
   * 3.1.1), or null. Logged at info, without credentials.
   */
  private blockedRefusal(identity: MqttIdentity): AuthenticateError | null {
    const until = this.bans?.blockedUntil(identity.realm, identity.clientId) ?? null;
    if (until === null) return null;
    const message = `blocked by a manager until ${new Date(until).toISOString()}`;
    this.logger.info(
      { realm: identity.realm, mqttClient: identity.clientId },
      `MQTT client ${message}`,
    );
    return notAuthorized(message);
  }

  /** MQTT clients connected now (CONNACK sent, not yet gone). */
  get connectedCount(): number {
    let n = 0;
    for (const set of this.clientsByRealm.values()) n += set.size;
    return n;
  }

  /** MQTT clients connected now, per realm (`/api/stats`). */
  realmCounts(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [realm, set] of this.clientsByRealm) if (set.size > 0) out.set(realm, set.size);
    return out;
  }

  /** The MQTT clients of `realm` connected now, with their credentials (`end_sessions`). */
  realmClients(realm: string): Array<{ client: Client; credential: SessionCredential | null }> {
    const out: Array<{ client: Client; credential: SessionCredential | null }> = [];
    for (const client of this.clientsByRealm.get(realm) ?? []) {
      out.push({ client, credential: this.auth.identity(client)?.credential ?? null });
    }
    return out;
  }

  /** MQTT clients connected now, per realm, as `GET /api/clients` lists them. */
  clientList(): Map<string, ClientMqtt[]> {
    const out = new Map<string, ClientMqtt[]>();
    for (const [realm, set] of this.clientsByRealm) {
      const list: ClientMqtt[] = [];
      for (const client of set) {
        const identity = this.auth.identity(client);
        const facts = this.facts.get(client);
        if (identity && facts) list.push(describeMqttClient(client, identity, facts));
      }
      list.sort((a, b) => (a.client_id < b.client_id ? -1 : a.client_id > b.client_id ? 1 : 0));
      if (list.length > 0) out.set(realm, list);
    }
    return out;
  }

  get bound(): MqttBound | null {
    return this.boundAt;
  }

  /** The aedes instance while listening (embedding and tests). */
  get broker(): Aedes | null {
    return this.aedes;
  }

  /**
   * Starts aedes and binds `settings.port` (0 = any free port) on `settings.host ?? host`.
   * @throws PortInUseError (`SWB_ERR_PORT_IN_USE`) naming the MQTT port when it is taken; other
   *   bind errors or a TLS file read error as Node raises them. Nothing stays open then.
   */
  async listen(settings: MqttSettings, host: string): Promise<MqttBound> {
    const auth = this.auth;
    const { state, limits, metrics } = this.options;
    // Without a store: in memory, as aedes' own persistence (plus `purgeRealm`).
    const persistence = new StoredPersistence(
      state,
      (client) => auth.identity(client),
      (identity) => auth.stillValid(identity),
      settings.max_inflight_inbound,
    );
    persistence.onBackgroundError = (err) =>
      this.logger.error({ err }, 'MQTT: a queued message could not be stored');
    const receiveMaximum = new ReceiveMaximumGuard((client) => {
      const who = auth.identity(client);
      this.logger.info(
        { mqttClient: who?.clientId ?? client.id, realm: who?.realm },
        'MQTT client over the Receive Maximum (max_inflight_inbound): disconnected',
      );
    });
    persistence.onInboundCapExceeded = (client) => receiveMaximum.exceeded(client);
    const outbound = new OutboundLimits(metrics?.registry, this.logger, (client) => {
      const who = auth.identity(client);
      return { mqttClient: who?.clientId ?? client.id, realm: who?.realm };
    });
    const authenticate: AuthenticateHook = limits
      ? (client, username, password, done) =>
          auth.authenticate(client, username, password, (err, ok) => {
            const identity = !err && ok ? auth.identity(client) : undefined;
            const refusal = identity
              ? limits.admit(client, identity.realm, identity.rateKey ?? null)
              : null;
            if (!refusal) {
              done(err, ok);
              return;
            }
            this.logger.info(
              { mqttClient: identity?.clientId, realm: identity?.realm, ...refusal },
              'MQTT client refused by a connection limit',
            );
            const error = new Error(`rate limited: ${refusal.reason}`);
            done(Object.assign(error, { returnCode: SERVER_UNAVAILABLE }), false);
          })
      : auth.authenticate;
    const willRefusals = new WillRefusals(
      metrics?.registry,
      this.logger,
      (client, will) => auth.identity(client) ?? restoredWillIdentity(will),
      (clientId) => persistence.delWill({ id: clientId } as Client),
    );
    // Loaded here, not at start-up: a broker with MQTT off never needs aedes (RSS, bench `rss`).
    const { Aedes: AedesBroker } = await import('aedes');
    const aedes = await AedesBroker.createBroker({
      persistence,
      ...mqtt5Options(settings),
      authenticate: (client, username, password, done) => {
        this.facts.set(client, { username: username ?? null, connectedAt: 0 });
        const records = this.records;
        records?.connecting(client, username);
        authenticate(client, username, password, (err, ok) => {
          const identity = auth.identity(client);
          const blocked = !err && ok && identity ? this.blockedRefusal(identity) : null;
          records?.decided(
            client,
            identity,
            blocked ? blocked.message : err || !ok ? (err?.message ?? null) : null,
          );
          if (blocked) done(blocked, false);
          else done(err, ok);
        });
      },
      authorizePublish: authorizePublishHook(auth, limits, willRefusals),
      authorizeSubscribe: auth.authorizeSubscribe,
      authorizeForward: auth.authorizeForward,
      published: this.bridge.published,
      ...(this.options.heartbeatInterval
        ? { heartbeatInterval: this.options.heartbeatInterval }
        : {}),
    });
    auth.delivered = metrics ? (realm, topic) => metrics.messageDelivered(realm, topic) : null;
    aedes.on('client', (client) => {
      const identity = auth.identity(client);
      if (!identity) return;
      metrics?.connection();
      let set = this.clientsByRealm.get(identity.realm);
      if (!set) this.clientsByRealm.set(identity.realm, (set = new Set()));
      set.add(client);
      const facts = this.facts.get(client);
      this.facts.set(client, { username: facts?.username ?? null, connectedAt: Date.now() });
    });
    cleanIncomingOfCleanSessions(aedes, persistence, this.logger);
    aedes.on('clientDisconnect', (client) => {
      const identity = auth.identity(client);
      const set = identity ? this.clientsByRealm.get(identity.realm) : undefined;
      set?.delete(client);
      if (set?.size === 0) this.clientsByRealm.delete(identity!.realm);
    });
    this.aedes = aedes;
    this.persistence = persistence;
    await enforceStoredSessionExpiry(aedes, persistence, (err) =>
      this.logger.error({ err }, 'MQTT: a session expiry could not be stored'),
    );
    const shared = new SharedSubscriptions(aedes, this.bridge, this.logger);
    aedes.on('clientError', (client, err) => {
      this.logger.debug({ mqttClient: client.id, err: err.message }, 'MQTT client error');
    });
    // aedes reports persistence and will-sweep failures here; unheard, they would crash.
    (aedes as unknown as NodeJS.EventEmitter).on('error', (err: Error) => {
      if (!willRefusals.reported(err)) this.logger.error({ err }, 'MQTT broker error');
    });
    const maxPacketSize = settings.max_packet_size;
    const guards = { aedes, auth, shared, receiveMaximum, outbound, logger: this.logger };
    this.records?.attach(aedes);
    const tcpKind = settings.tls ? 'tls' : 'tcp';
    const handle = (conn: Parameters<Aedes['handle']>[0], req?: IncomingMessage): void => {
      // A WebSocket that was mid-handshake when the stop began: refused like a new TCP one.
      if (!this.accepting) {
        conn.destroy();
        return;
      }
      const client = aedes.handle(conn, req);
      this.records?.accepted(client, conn, req, req ? 'ws' : tcpKind);
      guardConnection(client, conn, { ...guards, maxPacketSize });
    };
    const bindHost = settings.host ?? host;
    try {
      const { server, wsPort } = await bindMqttTransports(settings, bindHost, handle, {
        verifyWebSocket: this.options.verifyWebSocket,
        opened: (server, wss) => {
          this.server = server;
          this.wss = wss;
        },
      });
      const stops = [this.bridge.start(aedes), shared.start()];
      this.stopBridge = () => stops.forEach((stop) => stop());
      publishPresence(aedes, this.auth, this.logger);
      this.stopRevocations = watchMqttRevocations(
        this.authState,
        this.auth,
        () => this.aedes,
        this.logger,
      );
      this.boundAt = { port: (server.address() as AddressInfo).port, host: bindHost, wsPort };
      this.logger.info({ ...this.boundAt, tls: Boolean(settings.tls) }, 'MQTT listening');
      return this.boundAt;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /**
   * A realm was removed or expired: closes its MQTT clients without their wills and deletes all
   * of its MQTT state (mqtt-realm-purge.ts), from the store alone when not listening. Resolves
   * once the store's delete is committed; rejects when that write fails.
   */
  async purgeRealm(realm: string): Promise<void> {
    const aedes = this.aedes;
    const persistence = this.persistence;
    if (aedes && persistence) {
      closeRealmClients(aedes, this.auth, realm, this.logger);
      await persistence.purgeRealm(realm);
    } else await purgeStoredRealm(this.options.state, realm);
  }

  /**
   * `rename_realm`, first step: closes `realm`'s MQTT clients (no wills) and waits for them to
   * be gone, so nothing more is stored under the old names. Resolves with how many.
   */
  async closeRealmForRename(realm: string): Promise<number> {
    const aedes = this.aedes;
    return aedes ? closeRealmClientsForRename(aedes, this.auth, realm, this.logger) : 0;
  }

  /**
   * `rename_realm`, after the store moved its rows: moves aedes' working copy of `from`'s
   * sessions and retained messages to `to` (stored-persistence.ts). Zero when not listening.
   */
  async renameRealm(from: string, to: string): Promise<{ retained: number; sessions: number }> {
    return (await this.persistence?.renameRealm(from, to)) ?? { retained: 0, sessions: 0 };
  }

  /**
   * The retained messages of this listener (`list_retained`, `delete_retained`), or null when
   * it is not listening (MQTT off): internal (scoped) names, realm-topics.ts.
   */
  get retained(): Pick<StoredPersistence, 'retainedMatching' | 'clearRetained'> | null {
    return this.aedes ? this.persistence : null;
  }

  /** Whether aedes' working copy holds MQTT state of `realm` (false when not listening). */
  async holdsRealm(realm: string): Promise<boolean> {
    return (await this.persistence?.holdsRealm(realm)) ?? false;
  }

  /**
   * A tyo-mq producer or consumer `name` came online (`new`) or went offline (`disconnect`) in
   * `realm`: published on the realm's `$SYS` presence topics (mqtt-presence.ts) while listening.
   */
  socketPresence(realm: string, name: string, kind: 'new' | 'disconnect'): void {
    if (this.aedes) announcePresence(this.aedes, realm, name, kind, this.logger);
  }

  /** A stop began (graceful-drain.ts): new connections are refused, open ones go on. */
  stopAccepting(): void {
    this.accepting = false;
    const server = this.server;
    if (server?.listening) {
      this.serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** Disconnects every MQTT client and closes the listeners; safe to call twice. */
  async close(): Promise<void> {
    this.stopBridge?.();
    this.stopBridge = null;
    this.stopRevocations?.();
    this.stopRevocations = null;
    const aedes = this.aedes;
    this.aedes = null;
    this.persistence = null;
    if (aedes) await new Promise<void>((resolve) => aedes.close(() => resolve()));
    const wss = this.wss;
    this.wss = null;
    if (wss) {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    }
    const server = this.server;
    this.server = null;
    if (server?.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    else await this.serverClosed;
    this.serverClosed = null;
    this.boundAt = null;
    this.clientsByRealm.clear();
  }
}
