/**
 * The lines `npm run console` prints on stdout once it is ready (electron/web/cli.ts): the
 * console's link, then where clients reach the local broker — its socket.io address and, when its
 * MQTT listener is on, its MQTT address. Pure, so the lines are tested without a process.
 */

export interface StartupAddresses {
  /** The console's link, with its `#token=` fragment. */
  consoleUrl: string;
  /** Where the local broker's socket.io listener is reached (wildcards already mapped to
   * loopback, see `BrokerSupervisor.endpoint`), or null when it is not running. */
  broker: { host: string; port: number } | null;
  /** The local broker's bound MQTT TCP port, or null without an MQTT listener
   * (`--broker-mqtt-port off`, or `mqtt.enabled: false` in the settings). */
  mqttPort: number | null;
}

/** `[host]` for an IPv6 literal, so `host:port` stays readable as a URL. */
function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The stdout lines, labels padded to one column:
 *
 *   Console: http://127.0.0.1:17353/#token=<secret>
 *   Broker:  http://127.0.0.1:17352
 *   MQTT:    mqtt://127.0.0.1:1883
 *
 * `Broker:` only while the broker runs; `MQTT:` only with a bound MQTT port, on the broker's
 * host (the console binds both listeners on `--broker-host`).
 */
export function startupLines({ consoleUrl, broker, mqttPort }: StartupAddresses): string[] {
  const lines = [`Console: ${consoleUrl}`];
  if (!broker) return lines;
  const host = urlHost(broker.host);
  lines.push(`Broker:  http://${host}:${broker.port}`);
  if (mqttPort !== null) lines.push(`MQTT:    mqtt://${host}:${mqttPort}`);
  return lines;
}
