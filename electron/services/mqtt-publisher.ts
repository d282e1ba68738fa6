/**
 * The console's MQTT publisher (`shared/console-api-mqtt-publish.ts`): one short-lived MQTT.js
 * client per publish, admitted into the realm the way `docs/mqtt.md` § Credentials describes,
 * that sends one PUBLISH and waits for its PUBACK / PUBCOMP before disconnecting.
 *
 * Why a client per publish: publishes are operator actions seconds apart, and a long-lived
 * client would hold a temporary token (and a session on the broker) between them.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connectAsync, type IClientOptions, type IClientPublishOptions } from 'mqtt';
import {
  MqttPublishInputSchema,
  type MqttPublishInput,
  type MqttPublishResult,
} from '../../shared/console-api-mqtt-publish';
import { SwitchboardError } from '../../shared/error-catalogue';
import { Protocol } from '../../shared/protocol-events';
import type { ConnectionProfile } from './connection-manager';
import type { ManagerClient } from './manager-client';
import { toRealmList } from './manager-pool';
import type { RealmSocket } from './realm-access';

/** The MQTT port a remote broker is assumed to listen on when the form gives none (IANA). */
export const DEFAULT_MQTT_PORT = 1883;

/** How long the publisher waits for CONNACK and for the acknowledgement, ms. */
const STEP_TIMEOUT_MS = 5_000;

export interface MqttPublisherDeps {
  profile: ConnectionProfile;
  manager: ManagerClient;
  /** The connection's admin token, when it has one (the local console's, an admin profile's). */
  adminToken: string | null;
  /** Opens a realm socket with a temporary token (realm-access.ts), for realms that need one. */
  openTemporary: (realm: string) => Promise<RealmSocket>;
}

type Credentials = {
  admittedAs: MqttPublishResult['admittedAs'];
  username?: string;
  password?: string;
  /** Closes what admitted the client (the temporary token's socket, which revokes it). */
  release: () => Promise<void>;
};

const NOTHING = async (): Promise<void> => undefined;

/**
 * Sends one MQTT publish (see `MqttPublishMethods.publishMqtt` for errors); the caller adds
 * who it could reach (publish-reach.ts).
 */
export async function publishMqtt(
  deps: MqttPublisherDeps,
  raw: MqttPublishInput,
): Promise<Omit<MqttPublishResult, 'subscribers' | 'realmConfigured'>> {
  const parsed = MqttPublishInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      `${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const input = parsed.data;
  if (input.realm === Protocol.ADMIN_REALM) {
    throw new SwitchboardError('SWB_ERR_VALIDATION', 'MQTT clients publish in a realm, not "*"');
  }
  if (input.protocolVersion === 4 && input.properties && Object.keys(input.properties).length) {
    throw new SwitchboardError(
      'SWB_ERR_VALIDATION',
      'MQTT 3.1.1 has no PUBLISH properties: choose MQTT 5 or remove them',
    );
  }
  const payload = payloadBytes(input.payload, input.format);
  const endpoint = await endpointOf(deps.profile, input.mqttPort, input.tls);
  const credentials = await credentialsFor(deps, input.realm);
  try {
    const options: IClientOptions = {
      protocolVersion: input.protocolVersion,
      clientId: `switchboard-console-publisher-${randomBytes(4).toString('hex')}`,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: STEP_TIMEOUT_MS,
      ...(credentials.username === undefined ? {} : { username: credentials.username }),
      ...(credentials.password === undefined ? {} : { password: credentials.password }),
      ...(await tlsOptions(deps.profile, endpoint.tls)),
    };
    let client;
    try {
      client = await connectAsync(endpoint.url, options);
    } catch (error) {
      throw refusal(error, `Cannot connect to ${endpoint.url}`);
    }
    try {
      const publish: IClientPublishOptions = { qos: input.qos, retain: input.retain };
      if (input.protocolVersion === 5) {
        publish.properties = publishProperties(input.properties, input.format);
      }
      const timeout = new Promise<never>((_, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new SwitchboardError(
                'SWB_ERR_BROKER_UNREACHABLE',
                `The broker did not acknowledge the QoS ${input.qos} publish within 5 s`,
              ),
            ),
          STEP_TIMEOUT_MS,
        );
        timer.unref();
      });
      await Promise.race([client.publishAsync(input.topic, payload, publish), timeout]).catch(
        (error: unknown) => {
          throw error instanceof SwitchboardError ? error : refusal(error, 'The broker refused');
        },
      );
    } finally {
      await client.endAsync().catch(() => undefined);
    }
    return {
      realm: input.realm,
      topic: input.topic,
      qos: input.qos,
      retain: input.retain,
      bytes: payload.length,
      acknowledged: input.qos > 0,
      endpoint: endpoint.url,
      admittedAs: credentials.admittedAs,
      at: Date.now(),
    };
  } finally {
    await credentials.release();
  }
}

function payloadBytes(text: string, format: 'text' | 'json' | 'base64'): Buffer {
  if (format === 'json') {
    try {
      JSON.parse(text);
    } catch (error) {
      throw new SwitchboardError(
        'SWB_ERR_VALIDATION',
        `The payload is not valid JSON: ${(error as Error).message}`,
      );
    }
  }
  if (format === 'base64') {
    const compact = text.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
      throw new SwitchboardError('SWB_ERR_VALIDATION', 'The payload is not valid base64');
    }
    return Buffer.from(compact, 'base64');
  }
  return Buffer.from(text, 'utf8');
}

function publishProperties(
  properties: MqttPublishInput['properties'],
  format: 'text' | 'json' | 'base64',
): NonNullable<IClientPublishOptions['properties']> {
  const out: NonNullable<IClientPublishOptions['properties']> = {
    payloadFormatIndicator: properties?.payloadFormatIndicator ?? format !== 'base64',
  };
  if (properties?.contentType) out.contentType = properties.contentType;
  else if (format === 'json') out.contentType = 'application/json';
  if (properties?.responseTopic) out.responseTopic = properties.responseTopic;
  if (properties?.correlationData) {
    out.correlationData = Buffer.from(properties.correlationData, 'utf8');
  }
  if (properties?.messageExpirySeconds) {
    out.messageExpiryInterval = properties.messageExpirySeconds;
  }
  if (properties?.userProperties?.length) {
    const user: Record<string, string[]> = {};
    for (const { key, value } of properties.userProperties) (user[key] ??= []).push(value);
    out.userProperties = user;
  }
  return out;
}

/** `mqtt[s]://<the connection's host>:<port>`: never another host than the connection's. */
async function endpointOf(
  profile: ConnectionProfile,
  port: number | undefined,
  tls: boolean | undefined,
): Promise<{ url: string; tls: boolean }> {
  const base = new URL(profile.url());
  let chosen = port;
  if (chosen === undefined && profile.local) {
    const status = profile.local.status();
    if (status.mqttPort === null) {
      throw new SwitchboardError(
        'SWB_ERR_VALIDATION',
        'The local broker has no MQTT listener (started with --broker-mqtt-port off, or not running)',
      );
    }
    chosen = status.mqttPort;
  }
  const secure = tls ?? (base.protocol === 'https:' || base.protocol === 'wss:');
  const host = base.hostname.includes(':') ? `[${base.hostname}]` : base.hostname;
  return {
    url: `${secure ? 'mqtts' : 'mqtt'}://${host}:${chosen ?? DEFAULT_MQTT_PORT}`,
    tls: secure,
  };
}

async function tlsOptions(profile: ConnectionProfile, secure: boolean): Promise<IClientOptions> {
  if (!secure) return {};
  const tls = profile.stored?.tls;
  return {
    rejectUnauthorized: tls?.rejectUnauthorized ?? true,
    ...(tls?.caFile ? { ca: await readFile(tls.caFile) } : {}),
  };
}

async function credentialsFor(deps: MqttPublisherDeps, realm: string): Promise<Credentials> {
  const reply = await deps.manager.command({ command: 'get' });
  const realms = toRealmList('', reply.settings);
  if (!realms.authEnabled) {
    if (realm !== Protocol.DEFAULT_REALM) {
      throw new SwitchboardError(
        'SWB_ERR_VALIDATION',
        `Authentication is off on this broker: every client is in realm "default", not "${realm}"`,
      );
    }
    return { admittedAs: 'auth-off', release: NOTHING };
  }
  if (deps.adminToken) {
    return { admittedAs: 'admin', username: realm, password: deps.adminToken, release: NOTHING };
  }
  if (realms.realms.some((r) => r.name === realm && !r.authRequired)) {
    return { admittedAs: 'open', username: realm, release: NOTHING };
  }
  const socket = await deps.openTemporary(realm);
  return {
    admittedAs: 'temporary',
    username: realm,
    ...(socket.token === null ? {} : { password: socket.token }),
    release: () => socket.close(),
  };
}

/** CONNACK / PUBACK refusals as `SWB_ERR_UNAUTHORIZED`, network failures as unreachable. */
function refusal(error: unknown, context: string): SwitchboardError {
  const err = error as { code?: unknown; message?: string };
  const message = err?.message ?? String(error);
  // A socket error (`ECONNREFUSED`: nothing listens on the port) is no refusal by the broker.
  const network = typeof err?.code === 'string' && /^E[A-Z]+$/.test(err.code);
  if (
    !network &&
    (typeof err?.code === 'number' || /not authori[sz]ed|bad user name|refused/i.test(message))
  ) {
    return new SwitchboardError('SWB_ERR_UNAUTHORIZED', `${context}: ${message}`);
  }
  return new SwitchboardError('SWB_ERR_BROKER_UNREACHABLE', `${context}: ${message}`);
}
