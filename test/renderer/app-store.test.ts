import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleClient } from '../../renderer/src/api/console-client';
import { createConsoleSession } from '../../renderer/src/api/console-session';
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
  mqttPort: null,
  mqttWsPort: null,
};

/** A sample number `seq`; its wall-clock time defaults to `seq` ms. */
function sample(seq: number, produced: number, sampledAt = seq): Overview {
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
    seq,
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

  it('orders samples by their sequence, so a wall clock stepping back changes nothing', () => {
    const { applyOverview } = useAppStore.getState();
    applyOverview(sample(1, 10, 1_000_000));
    // The clock stepped back an hour between two samples: the newer one still applies.
    applyOverview(sample(2, 20, 1_000_000 - 3_600_000));
    expect(useAppStore.getState().overviews[LOCAL_CONNECTION_ID]?.counters?.produced).toBe(20);
    applyOverview(sample(3, 30, 1_000_000 - 3_599_000));
    expect(useAppStore.getState().overviews[LOCAL_CONNECTION_ID]?.counters?.produced).toBe(30);
    // A late answer carrying an older sample does not replace the newer one.
    applyOverview(sample(2, 20, 1_000_000 + 10));
    expect(useAppStore.getState().overviews[LOCAL_CONNECTION_ID]?.counters?.produced).toBe(30);
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

describe('console session', () => {
  /** A window stand-in: location, history, sessionStorage and hashchange listeners. */
  function fakeWindow(hash: string) {
    const storage = new Map<string, string>();
    const listeners = new Set<() => void>();
    const win = {
      location: { hash, pathname: '/', search: '' },
      addressBar: `/${hash}`,
      history: {
        replaceState: (_d: unknown, _u: string, url?: string | URL | null) => {
          win.location.hash = '';
          win.addressBar = String(url);
        },
      },
      sessionStorage: {
        getItem: (k: string) => storage.get(k) ?? null,
        setItem: (k: string, v: string) => void storage.set(k, v),
      },
      addEventListener: (_t: 'hashchange', l: () => void) => void listeners.add(l),
      removeEventListener: (_t: 'hashchange', l: () => void) => void listeners.delete(l),
      /** What the browser does when a link differing only in its fragment is opened. */
      open(fragment: string) {
        win.location.hash = fragment;
        win.addressBar = `/${fragment}`;
        listeners.forEach((l) => l());
      },
      listeners,
    };
    return win;
  }

  function fakeConnect() {
    const made: { token: string; closed: boolean }[] = [];
    const connect = (token: string): ConsoleClient => {
      const entry = { token, closed: false };
      made.push(entry);
      return {
        api: {} as ConsoleClient['api'],
        connectionState: () => 'online',
        onConnectionState: () => () => undefined,
        close: () => void (entry.closed = true),
      };
    };
    return { made, connect };
  }

  it('follows a new console link opened in the same tab and strips each token', () => {
    const win = fakeWindow('#token=first');
    const { made, connect } = fakeConnect();
    const session = createConsoleSession(win, connect);
    let changes = 0;
    session.subscribe(() => (changes += 1));
    expect(made).toEqual([{ token: 'first', closed: false }]);
    expect(win.addressBar).toBe('/');

    win.open('#token=second');
    expect(made).toEqual([
      { token: 'first', closed: true },
      { token: 'second', closed: false },
    ]);
    expect(session.current()).not.toBeNull();
    expect(changes).toBe(1);
    expect(win.addressBar).toBe('/');
    expect(win.sessionStorage.getItem('switchboard.console-token')).toBe('second');

    // A fragment without a token (or the same token again) changes nothing.
    win.open('#section');
    expect(win.addressBar).toBe('/#section');
    win.open('#token=second');
    expect(made).toHaveLength(2);
    expect(changes).toBe(1);

    session.close();
    expect(made[1]?.closed).toBe(true);
    expect(win.listeners.size).toBe(0);
  });

  it('starts without a client when the page has no token, then takes the first link', () => {
    const win = fakeWindow('');
    const { made, connect } = fakeConnect();
    const session = createConsoleSession(win, connect);
    expect(session.current()).toBeNull();
    win.open('#token=late');
    expect(made).toEqual([{ token: 'late', closed: false }]);
    session.close();
  });
});
