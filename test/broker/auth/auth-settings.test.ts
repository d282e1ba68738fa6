/**
 * The `auth` settings block reaches `AuthState` (`spec/protocol-admin.md` §12.2): invalid keys
 * are reported with their `auth.` path as `SWB_ERR_VALIDATION`, aliases are folded, and the
 * broker exposes the live state.
 */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { createBroker } from '../../../broker/index';
import { SwitchboardError } from '../../../shared/error-catalogue';

const logger = pino({ level: 'silent' });

describe('auth settings', () => {
  it('reports an invalid auth block with its auth. path', () => {
    const attempt = () =>
      createBroker(
        { auth: { enabled: true, realms: { alpha: { requireKey: 'yes' } } } },
        { logger, env: {} },
      );
    expect(attempt).toThrow(SwitchboardError);
    expect(attempt).toThrow(/auth\.realms\.alpha\.require_key/);
    // A key at the block's root is named `auth`, not `auth.` with an empty segment.
    expect(() => createBroker({ auth: { enabled: true, tokns: [] } }, { logger, env: {} })).toThrow(
      /Invalid auth settings: auth: Unrecognized key: "tokns"/,
    );
  });

  it('folds aliases and exposes the live AuthState', async () => {
    const broker = createBroker(
      {
        auth: {
          enabled: true,
          autoAdminToken: false,
          realms: { alpha: { managerKey: 'k', presharedKey: 'psk', requireAcceptance: false } },
        },
      },
      { logger, env: {} },
    );
    try {
      expect(broker.auth.enabled).toBe(true);
      expect(broker.auth.realm('alpha')).toEqual({
        manager_key: 'k',
        key: 'psk',
        require_acceptance: false,
      });
      expect(broker.auth.realm('__proto__')).toBeUndefined();
    } finally {
      await broker.close();
    }
  });
});
