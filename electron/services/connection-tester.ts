/**
 * The layered connection test of issue 12: (1) socket reachable — a socket.io connection opens at
 * the profile's base path; (2) credential accepted — a signed `get` management command for an
 * admin token (§8.4), a signed `AUTHORIZATION_NEXT` for a realm manager key (§7.2); (3) HTTP API
 * reachable (`GET /health`, §10.3) and authorized (`GET /api/stats` with the admin bearer,
 * §10.2). Each layer says what failed and what to change; the test itself never throws for a
 * broker problem and never puts a secret in a message.
 */
import type {
  ConnectionTestLayer,
  ConnectionTestReport,
} from '../../shared/console-api-connections';
import { HttpPath } from '../../shared/http-api';
import { apiUrl, assertBearerAllowed, parseBrokerUrl } from './broker-endpoint';
import type { ConnectionProfile } from './connection-manager';
import { httpGetText } from './http-get';
import { ManagerClient } from './manager-client';
import { HTTP_API_OFF_MESSAGE } from './metrics-poller';

/** Per-layer timeout in ms. */
const LAYER_TIMEOUT_MS = 5_000;

type Layer = ConnectionTestLayer['layer'];

const result = (
  layer: Layer,
  status: ConnectionTestLayer['status'],
  message: string,
  startedAt: number | null = null,
): ConnectionTestLayer => ({
  layer,
  status,
  message,
  durationMs: startedAt === null ? null : Math.round(performance.now() - startedAt),
});

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** Tests `profile` layer by layer; `timeoutMs` bounds each layer (default 5000). */
export async function testConnection(
  profile: ConnectionProfile,
  timeoutMs = LAYER_TIMEOUT_MS,
): Promise<ConnectionTestReport> {
  const report = (layers: ConnectionTestLayer[]): ConnectionTestReport => ({
    connectionId: profile.id,
    ok: layers.every((layer) => layer.status === 'ok'),
    layers,
    testedAt: Date.now(),
  });
  let target;
  try {
    target = profile.target();
  } catch (error) {
    const why = messageOf(error);
    return report([
      result('socket', 'failed', why),
      result('credential', 'skipped', 'Not tried: the profile cannot be used'),
      result('http', 'skipped', 'Not tried: the profile cannot be used'),
    ]);
  }
  if (!target) {
    const why = profile.local
      ? 'The local broker is not running: start it (Overview → Restart)'
      : 'No address to reach';
    return report([
      result('socket', 'failed', why),
      result('credential', 'skipped', 'Not tried: no socket'),
      result('http', 'skipped', 'Not tried: no address'),
    ]);
  }
  const secret = profile.secret?.() ?? null;
  const credential = profile.stored?.credential ?? { kind: 'admin' as const };
  const client = new ManagerClient({
    url: target.baseUrl,
    secret: secret ?? '',
    timeoutMs,
    ...(target.tls ? { tls: target.tls } : {}),
  });
  const layers: ConnectionTestLayer[] = [];
  try {
    let started = performance.now();
    let socketOk = false;
    try {
      await client.waitConnected(timeoutMs);
      socketOk = true;
      layers.push(result('socket', 'ok', `socket.io reachable at ${target.baseUrl}`, started));
    } catch (error) {
      layers.push(result('socket', 'failed', messageOf(error), started));
    }

    started = performance.now();
    if (!socketOk) {
      layers.push(result('credential', 'skipped', 'Not tried: the socket did not connect'));
    } else if (credential.kind === 'none' || !secret) {
      layers.push(
        result(
          'credential',
          'failed',
          credential.kind === 'none'
            ? 'No credential configured: add an admin token or a realm manager key to manage this broker'
            : 'The credential is missing from the secret store: edit the connection and enter it again',
        ),
      );
    } else {
      try {
        if (credential.kind === 'admin') {
          await client.command({ command: 'get' });
          layers.push(result('credential', 'ok', 'Admin token accepted (signed get)', started));
        } else {
          await client.next(credential.realm);
          layers.push(
            result(
              'credential',
              'ok',
              `Manager key of realm ${credential.realm} accepted (signed AUTHORIZATION_NEXT)`,
              started,
            ),
          );
        }
      } catch (error) {
        layers.push(result('credential', 'failed', messageOf(error), started));
      }
    }

    layers.push(await testHttp(target, credential.kind === 'admin', timeoutMs));
  } finally {
    client.close();
  }
  return report(layers);
}

async function testHttp(
  target: NonNullable<ReturnType<ConnectionProfile['target']>>,
  admin: boolean,
  timeoutMs: number,
): Promise<ConnectionTestLayer> {
  const started = performance.now();
  const get = (path: string, headers: Record<string, string> = {}) =>
    httpGetText(apiUrl(target.baseUrl, path), { timeoutMs, headers, tls: target.tls });
  try {
    const health = await get(HttpPath.HEALTH);
    if (health.status === 403 || health.status === 404) {
      return result('http', 'failed', HTTP_API_OFF_MESSAGE, started);
    }
    if (health.status !== 200) {
      return result('http', 'failed', `GET /health answered HTTP ${health.status}`, started);
    }
    const headers: Record<string, string> = {};
    if (admin && target.bearerToken) {
      try {
        assertBearerAllowed(parseBrokerUrl(target.baseUrl), target.allowInsecureBearer === true);
      } catch (error) {
        return result('http', 'failed', `Reachable, but ${messageOf(error)}`, started);
      }
      headers.authorization = `Bearer ${target.bearerToken}`;
    }
    const stats = await get(HttpPath.STATS, headers);
    if (stats.status === 200) {
      return result(
        'http',
        'ok',
        'HTTP API reachable and authorized (/health, /api/stats)',
        started,
      );
    }
    if (stats.status === 401 || stats.status === 403) {
      return result(
        'http',
        admin ? 'failed' : 'ok',
        admin
          ? `The HTTP API refused the admin token (HTTP ${stats.status})`
          : 'HTTP API reachable; its /api/* routes need an admin token, so metrics are not shown',
        started,
      );
    }
    return result('http', 'failed', `GET /api/stats answered HTTP ${stats.status}`, started);
  } catch (error) {
    return result('http', 'failed', `HTTP API unreachable: ${messageOf(error)}`, started);
  }
}
