/**
 * The broker's listeners (part of the composition root, `create-broker.ts`): its own HTTP
 * server for socket.io (`listen`) or someone else's (`attach`), the MQTT listener beside it,
 * and what readiness and `status()` read of them. Wiring only.
 *
 * `listen` waits for what must be in place before the first client is served — the store
 * open, durable subscriptions restored, namespaces loaded, the cluster and the shared admin
 * state started — and is all or nothing: a taken MQTT port closes the socket.io server again
 * and rejects (`SWB_ERR_PORT_IN_USE`, docs/mqtt.md).
 */
import type { Server as HttpServer } from 'node:http';
import type { AuthState } from './auth/auth-state';
import type { Settings } from './config/settings-schema';
import type { EmbeddingParts } from './embedding/embedding-api';
import type { Logger } from './logging/logger';
import type { MqttListener } from './mqtt/mqtt-listener';
import { storeOpened } from './storage/create-store';
import type { MessageStore } from './storage/message-store';
import type { HttpHost, OwnServer } from './transport/http-host';
import type { BrokerServer } from './transport/socket-types';
import { BROKER_VERSION } from './version';

export interface BrokerListenersDeps {
  live: { readonly current: Settings };
  logger: Logger;
  auth: AuthState;
  store: MessageStore;
  /** Start-up work the first client must not overtake (restore, namespaces). */
  ready: () => Promise<unknown>;
  /** Started before serving (cluster, then the shared admin state). */
  start: () => Promise<void>;
  host: HttpHost;
  io: BrokerServer;
  /** Told the bound host (the request policy's Host check). */
  bound: (host: string) => void;
  mqtt: MqttListener;
  embedding: EmbeddingParts;
}

export class BrokerListeners {
  private own: OwnServer | null = null;
  private attached: HttpServer | null = null;
  private address: { port: number; host: string } | null = null;
  private mqttExpected = false;

  constructor(private readonly d: BrokerListenersDeps) {}

  /** Where socket.io listens on its own server; null when not (attached, or stopped). */
  get bound(): { port: number; host: string } | null {
    return this.address;
  }

  /** Whether socket.io is serving (own server bound, or the attached server listening). */
  listening(): boolean {
    return this.address !== null || this.attached?.listening === true;
  }

  /** For readiness: whether the MQTT listener is bound, or null when MQTT is not expected. */
  mqttBound(): boolean | null {
    return this.mqttExpected ? this.d.mqtt.bound !== null : null;
  }

  async listen(port: number, bindHost: string): Promise<{ port: number; host: string }> {
    const { d } = this;
    await storeOpened(d.store);
    await d.ready();
    await d.start();
    const server = await d.host.listen(port, bindHost);
    this.own = server;
    d.bound(bindHost);
    if (d.live.current.mqtt.enabled) {
      this.mqttExpected = true;
      try {
        await d.mqtt.listen(d.live.current.mqtt, bindHost);
        d.embedding.attachAedes(d.mqtt.broker);
      } catch (err) {
        // All or nothing: a broker whose MQTT port is taken does not stay half up.
        this.own = null;
        await server.close();
        throw err;
      }
    }
    this.address = { port: server.port, host: bindHost };
    d.logger.info(
      {
        port: server.port,
        host: bindHost,
        version: BROKER_VERSION,
        auth: d.auth.enabled,
        storage: d.store.backend,
      },
      'broker listening',
    );
    return this.address;
  }

  attach(server: HttpServer): void {
    this.d.host.attach(server);
    this.attached = server;
    void this.d.start();
  }

  /** Stops accepting new connections on the own server (open ones go on). */
  stopAccepting(): void {
    this.own?.stopAccepting();
  }

  /** Closes the own server, or hands an attached one back with our engine stopped. */
  async close(): Promise<void> {
    if (this.own) {
      await this.own.close();
      this.own = null;
    } else {
      this.d.io.engine?.close();
    }
    this.d.host.detach();
    this.address = null;
    this.attached = null;
  }
}
