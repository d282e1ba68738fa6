/**
 * MQTT authentication and authorization: aedes' hooks mapped onto Switchboard's realms, tokens
 * and roles (issue 14; `spec/protocol-admin.md` §3.1 roles, §3.3 matrix, §4 token pipeline).
 *
 * CONNECT credentials, with auth enabled:
 *   - password = a token (static, JWT or external; same pipeline as `AUTHENTICATION`). The
 *     token's realm is the client's realm; an admin token (realm `*`) takes the realm from the
 *     username (default `default`). A username naming another realm is refused.
 *   - username = realm, password = that realm's pre-shared key (`key`): a `consumer`.
 *   - no password: allowed where the realm (username, default `default`) does not require
 *     auth (`required: false`), with role `both`; in a realm requiring auth, only where it sets
 *     `allow_tokenless_consumers: true` (issue 20), with role `consumer`.
 * With auth disabled every client lands in realm `default` with role `both`.
 * Refusals (CONNACK): credentials that do not verify (a wrong password, token or key) are "bad
 * user name or password" in MQTT 5 (reason code 0x86) and "not authorized" in 3.1.1 (return code
 * 5: 3.1.1's code 4 means malformed data, [MQTT-3.2.2.3]); everything else (no credentials where
 * the realm requires them, a token for another realm) is "not authorized" (5 / 0x87).
 *
 * Roles: `producer` may publish (and leave a will), `consumer` may subscribe, `both`, `manager`
 * and `admin` may do either. Topics and the client id are scoped by realm (realm-topics.ts).
 */
import type { Socket } from 'node:net';
import type { AuthenticateError, Client, PublishPacket, Subscription } from 'aedes';
import { Protocol } from '../../shared/protocol-events';
import { e2eeRequiredText } from '../../shared/protocol-extensions';
import type { AuthState } from '../auth/auth-state';
import { mqttCleartextRefused } from './mqtt-e2ee';
import { grantCredential } from '../auth/rate-credential';
import {
  authRequired,
  keyMatches,
  rolePasses,
  tokenlessConsumersAllowed,
} from '../auth/realm-policy';
import { credentialOf } from '../auth/session-credential';
import { isGrant, type TokenValidator } from '../auth/token-validator';
import type { Logger } from '../logging/logger';
import { scopeClientId, scopeTopic, unscopeTopic } from './realm-topics';
import { restoredWillIdentity } from './packet-codec';
import { publishRefused } from './will-refusals';
import type { MqttIdentity } from './mqtt-identity';

/** CONNACK 3.1.1 return codes; aedes maps them onto MQTT 5 reason codes (4 → 0x86, 5 → 0x87). */
const BAD_USERNAME_OR_PASSWORD = 4;
const NOT_AUTHORIZED = 5;

/** Why `resolve` refused a client; `bad credentials` alone means the secret did not verify. */
type Refusal = 'bad credentials' | 'credentials required' | 'token is for another realm';

/** A packet as the parser hands it over, before aedes handles it. */
interface RawPacket {
  cmd: string;
  topic?: string;
  subscriptions?: { topic: string }[];
  unsubscriptions?: string[];
  will?: { topic: string } | null;
}

/** A CONNACK "not authorized" refusal (0x87 on MQTT 5, 5 on 3.1.1) saying `message`. */
export function notAuthorized(message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: NOT_AUTHORIZED }) as AuthenticateError;
}

/** The CONNACK refusal for `reason`, in the client's protocol version (see the module comment). */
function refusal(reason: Refusal | 'Authentication failed', version: number): AuthenticateError {
  const returnCode =
    reason === 'bad credentials' && version === 5 ? BAD_USERNAME_OR_PASSWORD : NOT_AUTHORIZED;
  return Object.assign(new Error(reason), { returnCode }) as AuthenticateError;
}

export class MqttAuth {
  private readonly identities = new WeakMap<Client, MqttIdentity>();
  /** Packets parsed before the client's realm was known, scoped once it is. */
  private readonly pending = new WeakMap<Client, RawPacket[]>();
  /** Outbound packets already stripped of their realm prefix. */
  private readonly forwarded = new WeakSet<object>();
  /** Called once per message forwarded to a client (not `$` topics): the delivered counter. */
  delivered: ((realm: string, topic: string) => void) | null = null;

  constructor(
    private readonly auth: AuthState,
    private readonly tokens: TokenValidator,
    private readonly logger: Logger,
  ) {}

  identity(client: Client | null): MqttIdentity | undefined {
    return client ? this.identities.get(client) : undefined;
  }

  /**
   * Called for every new connection: scopes each packet's topics by the client's realm before
   * aedes sees it, so subscriptions, unsubscriptions, wills, retained look-ups and persisted
   * sessions all use the internal names.
   */
  watch(client: Client): void {
    const parser = (client as unknown as { _parser: NodeJS.EventEmitter })._parser;
    parser.prependListener('packet', (packet: RawPacket) => {
      const id = this.identities.get(client);
      if (id) scopePacket(packet, id.realm);
      else {
        const list = this.pending.get(client);
        if (list) list.push(packet);
        else this.pending.set(client, [packet]);
      }
    });
  }

  readonly authenticate = (
    client: Client,
    username: string | undefined,
    password: Buffer | undefined,
    done: (error: AuthenticateError | null, success: boolean | null) => void,
  ): void => {
    this.resolve(client, username || undefined, password).then(
      (identity) => {
        if (typeof identity === 'string') {
          this.logger.info({ mqttClient: client.id, reason: identity }, 'MQTT client refused');
          done(refusal(identity, client.version), false);
          return;
        }
        this.identities.set(client, identity);
        // Sessions, takeover and wills are keyed by the scoped id (realm-topics.ts).
        (client as { id: string }).id = scopeClientId(
          identity.realm,
          identity.clientId,
          identity.authenticated,
        );
        for (const packet of this.pending.get(client) ?? []) scopePacket(packet, identity.realm);
        this.pending.delete(client);
        done(null, true);
      },
      (err: unknown) => {
        this.logger.warn({ err, mqttClient: client.id }, 'MQTT authentication failed');
        done(refusal('Authentication failed', client.version), false);
      },
    );
  };

  readonly authorizePublish = (
    client: Client | null,
    packet: PublishPacket,
    callback: (error?: Error | null) => void,
  ): void => {
    const scoped = unscopeTopic(packet.topic);
    let identity = this.identity(client);
    // A will restored from persistence (a previous run) without its client: authorized as a
    // publish of the identity stored with it, if that identity is still valid.
    if (!identity && !client) {
      const restored = restoredWillIdentity(packet);
      if (restored && this.stillValid(restored)) identity = restored;
      else if (!restored && !this.auth.enabled && scoped) {
        identity = {
          realm: scoped.realm,
          role: 'both',
          clientId: '',
          tokenHash: null,
          authenticated: false,
        };
      }
    }
    if (!identity || !scoped || scoped.realm !== identity.realm) {
      callback(publishRefused('not_authorized', 'not authorized'));
      return;
    }
    if (!rolePasses(identity.role, 'producer')) {
      callback(publishRefused('role', `role ${identity.role} may not publish`));
      return;
    }
    // `$` topics belong to the broker ([MQTT-4.7.2]); clients do not publish there.
    if (scoped.topic.startsWith('$')) {
      callback(publishRefused('reserved_topic', '$ topics are reserved'));
      return;
    }
    // §2.6 for MQTT (Switchboard): a `required` realm takes only the encrypted message shape.
    if (mqttCleartextRefused(this.auth, scoped.realm, packet.payload)) {
      callback(publishRefused('e2ee_required', e2eeRequiredText(scoped.realm)));
      return;
    }
    callback(null);
  };

  /**
   * Whether an identity admitted earlier (a restored will's) would still be admitted: its static
   * token still grants the same realm and role, or, admitted without credentials, its realm
   * still needs none. JWT and external grants cannot be re-checked without the client: false.
   */
  stillValid(identity: MqttIdentity): boolean {
    if (!this.auth.enabled) return true;
    if (identity.tokenHash !== null) {
      const entry = this.auth.tokenByHash(identity.tokenHash);
      return (
        entry !== undefined &&
        entry !== null &&
        (entry.realm === identity.realm || entry.realm === Protocol.ADMIN_REALM) &&
        entry.role === identity.role
      );
    }
    if (!identity.authenticated) {
      if (!authRequired(this.auth, identity.realm)) return true;
      return identity.role === 'consumer' && tokenlessConsumersAllowed(this.auth, identity.realm);
    }
    // Realm + PSK: a consumer, whose wills are refused by role anyway.
    return identity.role === 'consumer' && this.auth.realm(identity.realm) !== undefined;
  }

  readonly authorizeSubscribe = (
    client: Client,
    sub: Subscription,
    callback: (error: Error | null, subscription?: Subscription | null) => void,
  ): void => {
    const identity = this.identity(client);
    const scoped = unscopeTopic(sub.topic);
    if (!identity || !scoped || scoped.realm !== identity.realm) {
      callback(null, null);
      return;
    }
    // A refused filter is granted 0x80 (failure) in SUBACK rather than closing the connection.
    callback(null, rolePasses(identity.role, 'consumer') ? sub : null);
  };

  /**
   * Outbound: only the client's own realm, with the internal prefix removed. The packet is
   * rewritten in place (aedes hands each delivery its own copy) because aedes writes the
   * original packet, not the returned one, when it drains a persistent session's queue.
   */
  readonly authorizeForward = <P extends { topic: string }>(
    client: Client,
    packet: P,
  ): P | null => {
    if (this.forwarded.has(packet)) return packet;
    const identity = this.identity(client);
    const scoped = unscopeTopic(packet.topic);
    if (!identity || !scoped || scoped.realm !== identity.realm) return null;
    // aedes caps the QoS at an exact-topic subscription's after this hook, looking it up by the
    // (now client-visible) topic: do it here, with the internal name, as aedes would.
    const subs = (client as unknown as { subscriptions: Record<string, { qos?: number }> })
      .subscriptions;
    const sub = (packet as { qos?: number }).qos ? subs[packet.topic] : undefined;
    const p = packet as { qos?: number };
    if (sub && p.qos !== undefined && (sub.qos ?? 0) < p.qos) p.qos = sub.qos ?? 0;
    packet.topic = scoped.topic;
    this.forwarded.add(packet);
    if (this.delivered && !scoped.topic.startsWith('$')) this.delivered(scoped.realm, scoped.topic);
    return packet;
  };

  private async resolve(
    client: Client,
    username: string | undefined,
    password: Buffer | undefined,
  ): Promise<MqttIdentity | Refusal> {
    const clientId = client.id;
    if (!this.auth.enabled) {
      const realm = Protocol.DEFAULT_REALM;
      return { realm, role: 'both', clientId, tokenHash: null, authenticated: false };
    }
    if (!password || password.length === 0) {
      const realm = username ?? Protocol.DEFAULT_REALM;
      if (!authRequired(this.auth, realm)) {
        return { realm, role: 'both', clientId, tokenHash: null, authenticated: false };
      }
      // Issue 20: "auth required" holds for consumers too, unless the realm opts out.
      if (realm === Protocol.ADMIN_REALM || !tokenlessConsumersAllowed(this.auth, realm)) {
        return 'credentials required';
      }
      return { realm, role: 'consumer', clientId, tokenHash: null, authenticated: false };
    }
    const secret = password.toString('utf8');
    if (username && username !== Protocol.ADMIN_REALM) {
      const key = this.auth.realm(username)?.key;
      if (key !== undefined && keyMatches(key, secret)) {
        return {
          realm: username,
          role: 'consumer',
          clientId,
          tokenHash: null,
          authenticated: true,
          credential: credentialOf('realm-key', username, null, key),
        };
      }
    }
    const ip = (client.conn as Socket).remoteAddress ?? '';
    const grant = await this.tokens.validate(secret, username, ip);
    if (!isGrant(grant)) {
      this.logger.info({ mqttClient: clientId, refusal: grant.refused }, 'MQTT token refused');
      return 'bad credentials';
    }
    let realm = grant.realm;
    if (realm === Protocol.ADMIN_REALM) realm = username ?? Protocol.DEFAULT_REALM;
    else if (username !== undefined && username !== realm) return 'token is for another realm';
    return {
      realm,
      role: grant.role,
      clientId,
      tokenHash: grant.tokenHash,
      authenticated: true,
      rateKey: grantCredential(grant, secret),
      credential: grant.credential,
    };
  }
}

/** Rewrites a parsed packet's topics into `realm`'s internal names, in place. */
function scopePacket(packet: RawPacket, realm: string): void {
  switch (packet.cmd) {
    case 'publish':
      if (typeof packet.topic === 'string') packet.topic = scopeTopic(realm, packet.topic);
      break;
    case 'subscribe':
      for (const sub of packet.subscriptions ?? []) sub.topic = scopeTopic(realm, sub.topic);
      break;
    case 'unsubscribe':
      if (packet.unsubscriptions) {
        packet.unsubscriptions = packet.unsubscriptions.map((t) => scopeTopic(realm, t));
      }
      break;
    case 'connect':
      if (packet.will && typeof packet.will.topic === 'string') {
        packet.will.topic = scopeTopic(realm, packet.will.topic);
      }
      break;
    default:
  }
}
