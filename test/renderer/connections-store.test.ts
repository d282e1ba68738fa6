/**
 * The connections slice: `selectedConnectionId` (what every view uses) defaults to the local
 * broker, follows `selectConnection`, and falls back to the local broker when its connection is
 * removed; `bindConsole` tells the host which connection the page watches and re-subscribes on
 * a switch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleClient } from '../../renderer/src/api/console-client';
import { resetAppStore, useAppStore } from '../../renderer/src/store/app-store';
import { bindConsole } from '../../renderer/src/store/bind-console';
import { LOCAL_CONNECTION_ID, type ConsoleApi } from '../../shared/console-api';
import type { ConnectionSummary } from '../../shared/console-api-connections';

const summary = (
  id: string,
  name: string,
  state: ConnectionSummary['state'] = 'online',
  revision = { epoch: 1, seq: 1 },
): ConnectionSummary => ({
  id,
  name,
  url: 'http://127.0.0.1:1',
  builtIn: id === LOCAL_CONNECTION_ID,
  tls: { rejectUnauthorized: true },
  credential: { kind: 'admin' },
  allowInsecureBearer: false,
  hasSecret: true,
  state,
  problem: null,
  revision,
});

afterEach(() => resetAppStore());

describe('connections slice', () => {
  it('selects the local broker by default and falls back to it when a connection goes', () => {
    const state = () => useAppStore.getState();
    expect(state().selectedConnectionId).toBe(LOCAL_CONNECTION_ID);
    state().applyConnections([summary('local', 'Local broker'), summary('remote-1', 'Remote')]);
    state().selectConnection('remote-1');
    expect(state().selectedConnectionId).toBe('remote-1');
    state().applyConnections([summary('local', 'Local broker'), summary('remote-1', 'Remote 1')]);
    expect(state().selectedConnectionId).toBe('remote-1');
    state().applyConnections([summary('local', 'Local broker')]);
    expect(state().selectedConnectionId).toBe(LOCAL_CONNECTION_ID);
  });

  it('keeps the newer list when a call answer and a pushed event cross', () => {
    const state = () => useAppStore.getState();
    const remote = (s: ConnectionSummary['state'], seq: number, epoch = 1) => [
      summary('local', 'Local broker', 'online', { epoch, seq }),
      summary('remote-1', 'Remote', s, { epoch, seq }),
    ];
    state().applyConnections(remote('online', 5));
    // The answer of a call made before the scrape arrives after the event that followed it.
    state().applyConnections(remote('unknown', 4));
    expect(state().connections[1]?.state).toBe('online');
    state().applyConnections(remote('unreachable', 5));
    expect(state().connections[1]?.state).toBe('unreachable');
    // A restarted console host counts from zero again: its lists are taken.
    state().applyConnections(remote('unknown', 1, 2));
    expect(state().connections[1]?.state).toBe('unknown');
  });

  it('watches the selected connection and re-subscribes on a switch', async () => {
    const watched: string[][] = [];
    const asked: string[] = [];
    const fail = async () => ({ ok: false, error: { code: 'SWB_ERR_INTERNAL', message: 'x' } });
    const api = new Proxy(
      {},
      {
        get: (_target, name: string) => {
          if (name === 'on') return () => () => undefined;
          if (name === 'watchConnections') return (ids: string[]) => watched.push([...ids]);
          if (name === 'getOverview') {
            return async ({ connectionId }: { connectionId: string }) => {
              asked.push(connectionId);
              return fail();
            };
          }
          return fail;
        },
      },
    ) as ConsoleApi;
    const client: ConsoleClient = {
      api,
      connectionState: () => 'online',
      onConnectionState: () => () => undefined,
      close: () => undefined,
    };
    const stop = bindConsole(client);
    expect(watched).toEqual([[LOCAL_CONNECTION_ID]]);
    useAppStore.getState().selectConnection('remote-1');
    expect(watched).toEqual([[LOCAL_CONNECTION_ID], ['remote-1']]);
    await expect.poll(() => asked).toEqual([LOCAL_CONNECTION_ID, 'remote-1']);
    stop();
  });
});
