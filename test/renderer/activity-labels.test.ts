/** Activity entries read as what the operator did, not as wire command names (issue 22 item 19). */
import { describe, expect, it } from 'vitest';
import {
  actionLabel,
  entryDetails,
  entryLabel,
} from '../../renderer/src/views/activity/activity-labels';
import { AUDIT_PARAMS } from '../../electron/services/audit-rules';

describe('activity labels', () => {
  it('names every action the console sends in words', () => {
    expect(entryLabel({ action: 'AUTHORIZATION_DECIDE', params: { approved: true } })).toBe(
      'Approve request',
    );
    expect(entryLabel({ action: 'AUTHORIZATION_DECIDE', params: { approved: false } })).toBe(
      'Reject request',
    );
    expect(entryLabel({ action: 'set_realm_lifetime', params: { ttl: '2m' } })).toBe(
      'Set realm lifetime',
    );
    expect(entryLabel({ action: 'set_realm_lifetime', params: { ephemeral: false } })).toBe(
      'Make realm permanent',
    );
    expect(entryLabel({ action: 'set_realm_key', params: { key: '<cleared>' } })).toBe(
      'Clear pre-shared key',
    );
    expect(entryLabel({ action: 'set_realm_require_key', params: { require_key: false } })).toBe(
      'Stop requiring the pre-shared key',
    );
    expect(entryLabel({ action: 'set_realm_require_key', params: { require_key: true } })).toBe(
      'Require the pre-shared key',
    );
    expect(actionLabel('dlq_replay')).toBe('Replay dead letters');
    expect(actionLabel('console_publish')).toBe('Publish test message');
    for (const action of ['add_realm', 'remove_realm', 'revoke_token', 'dlq_discard']) {
      expect(actionLabel(action)).not.toMatch(/_/);
    }
    // Every audited command reads in words (a trial saw `move_queue`, `release_in_flight`).
    for (const action of Object.keys(AUDIT_PARAMS)) {
      expect(actionLabel(action), action).not.toMatch(/_/);
    }
    // Something new from a newer console still shows, as its wire name.
    expect(actionLabel('future_command')).toBe('future_command');
  });

  it('lists the parameters worth reading, without repeating the realm', () => {
    expect(
      entryDetails({
        action: 'dlq_discard',
        params: { realm: 'default', count: 2, ids: 'a, b' },
      }),
    ).toBe('count: 2 · ids: a, b');
    expect(
      entryDetails({
        action: 'AUTHORIZATION_DECIDE',
        params: { request_id: 'r1', approved: true, role: 'both' },
      }),
    ).toBe('role: both');
  });

  it('shows a move target as words, not JSON, and `to` as a new name only for a rename', () => {
    expect(
      entryDetails({
        action: 'move_queue',
        params: { realm: 'default', consumer: 'stuck', to: '{"consumer":"healthy-worker"}' },
      }),
    ).toBe('consumer: stuck · to: consumer healthy-worker');
    expect(entryDetails({ action: 'rename_realm', params: { from: 'a', to: 'b' } })).toBe(
      'new name: b',
    );
  });
});
