import { afterEach, describe, expect, it } from 'vitest';
import { takeConsoleToken } from '../../renderer/src/api/console-token';
import { resetAppStore, useAppStore } from '../../renderer/src/store/app-store';
import {
  LOCAL_CONNECTION_ID,
  type LocalBrokerStatus,
  type Overview,
} from '../../shared/console-api';

const status: LocalBrokerStatus = {
  state: 'running',
  port: 1,
  pid: 2,
  restarts: 0,
  startedAt: 3,
  lastError: null,
  dataDir: '/d',
};

function sample(sampledAt: number, produced: number): Overview {
  return {
    connectionId: LOCAL_CONNECTION_ID,
    name: 'Local broker',
    url: 'http://127.0.0.1:1',
    reachable: true,
    error: null,
    health: null,
    stats: null,
    counters: { produced, delivered: 0, connectionsTotal: 0, connectionsCurrent: 0 },
    rates: null,
    local: status,
    sampledAt,
  };
}

describe('app store', () => {
  afterEach(() => resetAppStore());

  it('keeps the newest overview per connection and never goes back in time', () => {
    const { applyOverview } = useAppStore.getState();
    applyOverview(sample(2, 20));
    applyOverview(sample(1, 10));
    expect(useAppStore.getState().overviews[LOCAL_CONNECTION_ID]?.counters?.produced).toBe(20);
    applyOverview(sample(3, 30));
    expect(useAppStore.getState().overviews[LOCAL_CONNECTION_ID]?.counters?.produced).toBe(30);
    expect(useAppStore.getState().localBroker).toEqual(status);
  });

  it('resets to the initial state', () => {
    useAppStore.getState().applyLocalBroker({ ...status, state: 'failed' });
    useAppStore.getState().setConnection('online');
    resetAppStore();
    expect(useAppStore.getState()).toMatchObject({
      localBroker: null,
      overviews: {},
      connection: 'connecting',
    });
  });
});

describe('takeConsoleToken', () => {
  function fakeStorage(): Pick<Storage, 'getItem' | 'setItem'> & { data: Map<string, string> } {
    const data = new Map<string, string>();
    return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
  }

  it('moves the token from the fragment to session storage and clears the address bar', () => {
    const storage = fakeStorage();
    const replaced: string[] = [];
    const token = takeConsoleToken({ hash: '#token=abc-123', pathname: '/', search: '' }, storage, {
      replaceState: (_data, _unused, url) => void replaced.push(String(url)),
    });
    expect(token).toBe('abc-123');
    expect([...storage.data.values()]).toEqual(['abc-123']);
    expect(replaced).toEqual(['/']);

    const again = takeConsoleToken({ hash: '', pathname: '/', search: '' }, storage, {
      replaceState: () => undefined,
    });
    expect(again).toBe('abc-123');
  });
});
