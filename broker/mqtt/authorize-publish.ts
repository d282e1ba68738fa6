/**
 * aedes' `authorizePublish` hook as the listener installs it: Switchboard's authorization
 * (mqtt-auth.ts, or the embedding's), then the publish rate limits (mqtt-limits.ts), with the
 * refused wills counted and logged (will-refusals.ts) and, on what is authorized, only the
 * properties a PUBLISH may carry (publish-properties.ts).
 */
import type { AedesOptions } from 'aedes';
import type { MqttAuth } from './mqtt-auth';
import type { MqttLimits } from './mqtt-limits';
import { keepPublishProperties } from './publish-properties';
import type { WillRefusals } from './will-refusals';

type AuthorizePublishHook = NonNullable<AedesOptions['authorizePublish']>;

/**
 * The hook: `callback(err)` for a refused publish or will (`willRefusals` told of a will),
 * `callback(null)` once the client's publish budget allows it (at once without `limits`).
 */
export function authorizePublishHook(
  auth: MqttAuth,
  limits: MqttLimits | undefined,
  willRefusals: WillRefusals,
): AuthorizePublishHook {
  return (client, packet, callback) =>
    auth.authorizePublish(client, packet, (err) => {
      if (err) {
        willRefusals.check(client, packet, err);
        callback(err);
        return;
      }
      keepPublishProperties(packet as { properties?: Record<string, unknown> });
      const identity = auth.identity(client);
      if (!limits || !client || !identity) callback(null);
      else limits.throttle(client, identity.realm, packet.payload.length, () => callback(null));
    });
}
