/**
 * RequestWatcher: a connection whose broker does not answer (its `list_requests` waits for
 * the 5 s timeout) must not delay the other connections' pending requests.
 */
import { describe, expect, it } from 'vitest';
import type { ManagerPool } from '../../electron/services/manager-pool';
import { RequestWatcher } from '../../electron/services/request-watcher';
import type { PendingRequest } from '../../shared/console-api';

describe('RequestWatcher', () => {
  it('reports a live connection while another one hangs', async () => {
    const never = new Promise<null>(() => undefined);
    const pool = {
      get: (connectionId: string) => ({
        command: () =>
          connectionId === 'dead'
            ? never
            : Promise.resolve({
                ok: true,
                requests: [{ request_id: 'authreq-1', status: 'pending', realm: 'fleet' }],
                total: 3,
              }),
      }),
    } as unknown as ManagerPool;
    const seen: PendingRequest[] = [];
    const watcher = new RequestWatcher({
      pool,
      connectionIds: () => ['dead', 'local'],
      onChange: (pending) => seen.push(pending),
    });
    void watcher.round();
    await expect.poll(() => seen.map((p) => p.connectionId), { timeout: 1_000 }).toEqual(['local']);
    expect(seen[0]?.request?.requestId).toBe('authreq-1');
    expect(seen[0]?.total).toBe(3);
  });
});
