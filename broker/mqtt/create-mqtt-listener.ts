/**
 * Wires the MQTT listener's parts (auth mapping, bridge, listener) for `createBroker`.
 */
import type { AuthState } from '../auth/auth-state';
import type { TokenValidator } from '../auth/token-validator';
import type { LimitsService } from '../limits/limits-service';
import type { Logger } from '../logging/logger';
import type { BrokerMetrics } from '../metrics/broker-metrics';
import type { Router } from '../routing/router';
import type { MessageStore } from '../storage/message-store';
import type { Embedding } from '../policy/embedding';
import { EmbeddedMqttAuth, EmbeddedMqttBridge } from './mqtt-hooks';
import { MqttAuth } from './mqtt-auth';
import { MqttBridge } from './mqtt-bridge';
import { MqttLimits } from './mqtt-limits';
import { MqttListener, type MqttListenerOptions } from './mqtt-listener';

export function createMqttListener(
  auth: AuthState,
  tokens: TokenValidator,
  router: Router,
  metrics: BrokerMetrics,
  logger: Logger,
  store?: MessageStore,
  limits?: LimitsService,
  /** The embedding API (docs/embedding.md): its hooks run inside aedes' hooks. */
  embed?: Embedding,
  /** aedes' heartbeat in ms (`BrokerOptions.mqttHeartbeatMs`). */
  heartbeatInterval?: number,
  /** The request policy's check of MQTT-over-WebSocket upgrades (Host, Origin). */
  verifyWebSocket?: MqttListenerOptions['verifyWebSocket'],
): MqttListener {
  const mqttAuth = embed
    ? embed.useMqtt(EmbeddedMqttAuth.create(auth, tokens, logger, embed))
    : new MqttAuth(auth, tokens, logger);
  return new MqttListener(
    auth,
    mqttAuth,
    embed
      ? EmbeddedMqttBridge.create(mqttAuth, router, metrics, logger, embed)
      : new MqttBridge(mqttAuth, router, metrics, logger),
    logger,
    {
      state: store?.mqttState,
      limits: limits ? new MqttLimits(limits) : undefined,
      metrics,
      heartbeatInterval,
      verifyWebSocket,
    },
  );
}
