/**
 * Reading `<prefix>:authreqs` (`spec/protocol-admin.md` §7.5, §15): unreadable text and
 * entries are dropped, expired ones pruned, and a reference node's entries (no `expiresAt`,
 * no `node_id`) are read with a 24 h lifetime from `created_at`.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_REQUEST_TTL_MS } from '../../broker/auth/authorization-requests';
import { parseRequests } from '../../broker/cluster/shared-request-document';

const NOW = Date.parse('2026-01-01T12:00:00.000Z');

const entry = (over: Record<string, unknown> = {}) => ({
  request_id: 'authreq-1',
  status: 'pending',
  realm: 'alpha',
  role: 'consumer',
  client_id: 'agent',
  client_name: 'Agent',
  client_token: 'secret',
  client_token_hash: 'ab'.repeat(32),
  challenge_response: null,
  created_at: '2026-01-01T11:00:00.000Z',
  decided_at: null,
  decision_reason: null,
  socket_id: 's1',
  node_id: 'n1',
  expiresAt: NOW + 1_000,
  ...over,
});

describe('parseRequests', () => {
  it('drops unreadable documents and entries, and expired entries', () => {
    expect(parseRequests(null, NOW)).toEqual([]);
    expect(parseRequests('not json', NOW)).toEqual([]);
    expect(parseRequests('{"a":1}', NOW)).toEqual([]);
    const text = JSON.stringify([
      entry(),
      entry({ request_id: 'old', expiresAt: NOW - 1 }),
      entry({ request_id: 'bad', status: 'weird' }),
      { request_id: 'partial' },
      42,
    ]);
    expect(parseRequests(text, NOW).map((r) => r.request_id)).toEqual(['authreq-1']);
  });

  it("reads a reference node's entry with defaults and a 24 h lifetime", () => {
    const { expiresAt: _e, node_id: _n, socket_id: _s, ...reference } = entry();
    const [read] = parseRequests(JSON.stringify([reference]), NOW);
    expect(read).toMatchObject({ request_id: 'authreq-1', node_id: null, socket_id: '' });
    expect(read!.expiresAt).toBe(Date.parse(reference.created_at) + DEFAULT_REQUEST_TTL_MS);
    const stale = { ...reference, created_at: '2025-12-30T11:00:00.000Z' };
    expect(parseRequests(JSON.stringify([stale]), NOW)).toEqual([]);
  });
});
