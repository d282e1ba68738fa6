import { describe, expect, it } from 'vitest';
import {
  buildOverviewModel,
  connectionsDetail,
  sumRegistrations,
} from '../../renderer/src/views/overview/overview-model';
import { formatCount, formatCountOf, formatDuration, formatRate } from '../../renderer/src/format';
import {
  LOCAL_CONNECTION_ID,
  type LocalBrokerStatus,
  type Overview,
} from '../../shared/console-api';

const running: LocalBrokerStatus = {
  state: 'running',
  port: 17352,
  pid: 42,
  restarts: 1,
  startedAt: 1_000,
  lastError: null,
  dataDir: '/data',
  mqttPort: null,
  mqttWsPort: null,
};

const overview: Overview = {
  connectionId: LOCAL_CONNECTION_ID,
  name: 'Local broker',
  url: 'http://127.0.0.1:17352',
  reachable: true,
  error: null,
  health: { status: 'ok', version: '0.1.0', uptime_seconds: 75, node_id: null },
  stats: {
    realms: {
      default: {
        producers: { total: 2, online: 1 },
        consumers: { total: 3, online: 3 },
        subscriptions: 2,
      },
      ops: {
        producers: { total: 1, online: 1 },
        consumers: { total: 0, online: 0 },
        subscriptions: 0,
      },
    },
    connections_current: 5,
  },
  counters: { produced: 100, delivered: 300, connectionsTotal: 9, connectionsCurrent: 5 },
  rates: { produced: 12.5, delivered: 37.5 },
  local: running,
  sampledAt: 2_000,
  seq: 2,
};

describe('overview model', () => {
  it('sums registrations over realms', () => {
    expect(sumRegistrations(overview.stats!)).toEqual({
      producers: { online: 2, total: 3 },
      consumers: { online: 3, total: 3 },
    });
  });

  it('derives the figures of a running broker', () => {
    expect(buildOverviewModel(overview, running)).toMatchObject({
      state: 'running',
      tone: 'ok',
      port: 17352,
      uptimeSeconds: 75,
      produced: 100,
      delivered: 300,
      producedRate: 12.5,
      deliveredRate: 37.5,
      connections: 5,
      restarts: 1,
      problem: null,
    });
  });

  it('says how many of the broker’s connections are this console’s own (issue 27)', () => {
    expect(buildOverviewModel({ ...overview, consoleConnections: 2 }, running)).toMatchObject({
      connections: 5,
      consoleConnections: 2,
    });
    // A host that does not say: nothing claimed.
    expect(buildOverviewModel(overview, running).consoleConnections).toBeNull();
    expect(connectionsDetail(5, 2)).toBe('open now · incl. 2 from this console');
    expect(connectionsDetail(5, 0)).toBe('open now');
    expect(connectionsDetail(5, null)).toBe('open now');
    expect(connectionsDetail(null, 1)).toBe('open now');
    // Read a moment apart: never more of them than the broker counts.
    expect(connectionsDetail(1, 2)).toBe('open now · incl. 1 from this console');
    expect(connectionsDetail(0, 1)).toBe('open now');
  });

  it('shows the supervisor error of a failed broker and no stale figures', () => {
    const failed: LocalBrokerStatus = {
      ...running,
      state: 'failed',
      pid: null,
      lastError: 'Port 17352 is already in use',
    };
    const unreachable: Overview = {
      ...overview,
      reachable: false,
      error: { code: 'SWB_ERR_BROKER_NOT_RUNNING', message: 'Local broker is not running' },
      health: null,
      stats: null,
      counters: null,
      rates: null,
      local: failed,
    };
    expect(buildOverviewModel(unreachable, failed)).toMatchObject({
      state: 'failed',
      tone: 'bad',
      produced: null,
      producers: null,
      problem: 'Port 17352 is already in use',
    });
  });

  it('shows a deliberately stopped broker as stopped, not as an outage', () => {
    // A crash before the stop left its error behind: the stop itself is no problem.
    const stopped: LocalBrokerStatus = {
      ...running,
      state: 'stopped',
      pid: null,
      startedAt: null,
      lastError: 'broker exited with code 1',
    };
    const sample: Overview = {
      ...overview,
      reachable: false,
      error: { code: 'SWB_ERR_BROKER_NOT_RUNNING', message: 'Local broker is not running' },
      health: null,
      stats: null,
      counters: null,
      rates: null,
      local: stopped,
    };
    expect(buildOverviewModel(sample, stopped)).toMatchObject({
      state: 'stopped',
      tone: 'idle',
      stoppedOnPurpose: true,
      problem: null,
    });
    expect(buildOverviewModel(overview, running).stoppedOnPurpose).toBe(false);
    expect(buildOverviewModel(sample, { ...stopped, state: 'failed' })).toMatchObject({
      stoppedOnPurpose: false,
      problem: 'broker exited with code 1',
    });
  });

  it('reports a scrape error while the broker process runs', () => {
    const blind: Overview = {
      ...overview,
      reachable: false,
      error: { code: 'SWB_ERR_BROKER_UNREACHABLE', message: 'Timed out after 2000 ms' },
    };
    expect(buildOverviewModel(blind, running).problem).toBe('Timed out after 2000 ms');
    expect(buildOverviewModel(undefined, null)).toMatchObject({
      state: 'unknown',
      tone: 'idle',
      port: null,
    });
  });
});

describe('overview model of a store refusing writes (free-space reserve)', () => {
  const withStorage = (storage: NonNullable<Overview['stats']>['storage']): Overview => ({
    ...overview,
    stats: { ...overview.stats!, storage },
  });
  const base = {
    free_bytes: 3 * 1024 * 1024,
    total_bytes: 20 * 1024 * 1024,
    reserve_bytes: 4 * 1024 * 1024,
    path: '/data',
  };

  it('says why and how much space is left while new durable copies are refused', () => {
    const low = buildOverviewModel(
      withStorage({ ...base, refusing_writes: true, reason: 'low_free_space' }),
      running,
    );
    expect(low.storageRefusal).toBe(
      "Free space on the store's disk is below its reserve (3.0 MiB free, reserve 4.0 MiB): new durable copies are refused; ACKs still commit.",
    );
    const full = buildOverviewModel(
      withStorage({ ...base, free_bytes: 0, refusing_writes: true, reason: 'store_full' }),
      running,
    );
    expect(full.storageRefusal).toMatch(/^The message store ran out of space \(0 B free/);
  });

  it('says nothing while the store accepts writes, or without a store status', () => {
    const ok = withStorage({ ...base, free_bytes: 9e9, refusing_writes: false, reason: null });
    expect(buildOverviewModel(ok, running).storageRefusal).toBeNull();
    expect(buildOverviewModel(overview, running).storageRefusal).toBeNull();
  });
});

describe('overview model of remote connections and a lost console host', () => {
  const remote: Overview = { ...overview, connectionId: 'remote-1', name: 'Remote', local: null };

  it('shows a remote broker as online or unreachable, without the local supervisor', () => {
    expect(buildOverviewModel(remote, running)).toMatchObject({
      state: 'online',
      tone: 'ok',
      port: null,
      produced: 100,
    });
    const down: Overview = {
      ...remote,
      reachable: false,
      error: { code: 'SWB_ERR_BROKER_UNREACHABLE', message: 'connect ECONNREFUSED' },
    };
    expect(buildOverviewModel(down, null)).toMatchObject({
      state: 'unreachable',
      tone: 'bad',
      problem: 'connect ECONNREFUSED',
    });
  });

  it('says plainly that the HTTP API is off, instead of calling the broker unreachable', () => {
    const off: Overview = {
      ...remote,
      reachable: false,
      error: {
        code: 'SWB_ERR_BROKER_UNREACHABLE',
        message: "The broker's HTTP API is switched off (http_api.enabled: false), …",
      },
    };
    expect(buildOverviewModel(off, null)).toMatchObject({
      state: 'online',
      httpApiOff: true,
      problem: null,
    });
  });

  it('says the broker refused the admin token, instead of calling it unreachable', () => {
    const refused: Overview = {
      ...remote,
      reachable: false,
      error: {
        code: 'SWB_ERR_BROKER_UNREACHABLE',
        message: 'GET /api/stats answered HTTP 401: the broker refused the admin token',
      },
    };
    expect(buildOverviewModel(refused, null)).toMatchObject({
      state: 'refused',
      tone: 'bad',
      problem: 'GET /api/stats answered HTTP 401: the broker refused the admin token',
    });
  });

  it('marks everything stale, never running, once the console host is gone', () => {
    expect(buildOverviewModel(overview, running, { stale: true })).toMatchObject({
      state: 'stale',
      staleState: 'running',
      tone: 'idle',
    });
  });
});

describe('format', () => {
  it('formats counts, rates and durations', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(null)).toBe('—');
    expect(formatCountOf(1, 'consumer')).toBe('1 consumer');
    expect(formatCountOf(0, 'consumer')).toBe('0 consumers');
    expect(formatCountOf(1200, 'producer')).toBe('1,200 producers');
    expect(formatRate(12.345)).toBe('12.3/s');
    expect(formatRate(null)).toBe('—/s');
    expect([0, 59, 61, 3_600 + 180, 86_400 * 2 + 3_600 * 5, -1].map(formatDuration)).toEqual([
      '0s',
      '59s',
      '1m 01s',
      '1h 03m',
      '2d 05h',
      '—',
    ]);
  });
});
