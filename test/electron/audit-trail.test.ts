/**
 * The host's replay trail (audit-trail.ts, issue 27): what an Activity entry keeps of a
 * `dlq_replay` reply — Switchboard's bulk and single forms with where each copy went, a plain
 * tyo-mq reply with ids only, malformed items skipped, long lists bounded — and that what it
 * returns is a valid `ActivityEntry` trail.
 */
import { describe, expect, it } from 'vitest';
import {
  ActivityEntrySchema,
  MAX_ACTIVITY_TRAIL,
  MAX_TRAIL_TEXT,
} from '../../shared/console-api-activity';
import { auditTrail } from '../../electron/services/audit-trail';

const replayed = (n: number) => ({
  msg_id: `dlq-${n}`,
  new_msg_id: `msg-${n}`,
  replay_count: 1,
  first_dead_lettered_at: '2026-12-06T01:00:00.000Z',
  realm: 'orders',
  consumer: 'billing',
  event: 'fleet-job',
});

const entry = (trail: object) => ({
  seq: 1,
  at: 0,
  actor: 'console (test)',
  connectionId: 'local',
  action: 'dlq_replay',
  target: 'orders',
  params: {},
  ok: true,
  error: null,
  durationMs: 1,
  ...trail,
});

describe('auditTrail', () => {
  it('keeps each replayed entry of a bulk reply: old id, new id, realm, consumer, event', () => {
    const trail = auditTrail('dlq_replay', {
      ok: true,
      replayed: [replayed(1), replayed(2)],
      not_found: ['dlq-9'],
    });
    expect(trail).toEqual({
      trail: [
        { from: 'dlq-1', to: 'msg-1', realm: 'orders', consumer: 'billing', event: 'fleet-job' },
        { from: 'dlq-2', to: 'msg-2', realm: 'orders', consumer: 'billing', event: 'fleet-job' },
      ],
    });
    expect(ActivityEntrySchema.safeParse(entry(trail!)).success).toBe(true);
  });

  it('reads the single-id form, and a plain tyo-mq reply as ids only', () => {
    expect(auditTrail('dlq_replay', { ok: true, ...replayed(3) })).toEqual({
      trail: [
        { from: 'dlq-3', to: 'msg-3', realm: 'orders', consumer: 'billing', event: 'fleet-job' },
      ],
    });
    // §8.2's reply: no realm, consumer or event — the trail still links the two ids.
    expect(auditTrail('dlq_replay', { ok: true, msg_id: 'dlq-4', new_msg_id: 'msg-4' })).toEqual({
      trail: [{ from: 'dlq-4', to: 'msg-4' }],
    });
  });

  it('skips malformed items and fields, and is null when nothing was replayed', () => {
    const trail = auditTrail('dlq_replay', {
      ok: true,
      replayed: [
        { msg_id: 'dlq-5' },
        'dlq-6',
        null,
        { msg_id: 'dlq-7', new_msg_id: 'msg-7', realm: 42, consumer: '', event: 'k' },
      ],
    });
    expect(trail).toEqual({ trail: [{ from: 'dlq-7', to: 'msg-7', event: 'k' }] });
    expect(auditTrail('dlq_replay', { ok: true, replayed: [], not_found: ['x'] })).toBeNull();
    expect(auditTrail('dlq_replay', null)).toBeNull();
    expect(auditTrail('dlq_discard', { ok: true, ...replayed(8) })).toBeNull();
    expect(auditTrail('move_queue', { ok: true, replayed: [replayed(9)] })).toBeNull();
  });

  it('bounds the trail: the first entries listed, the rest counted, long names cut', () => {
    const many = Array.from({ length: MAX_ACTIVITY_TRAIL + 5 }, (_, i) => replayed(i));
    many[0]!.consumer = 'c'.repeat(MAX_TRAIL_TEXT + 50);
    const trail = auditTrail('dlq_replay', { ok: true, replayed: many, not_found: [] })!;
    expect(trail.trail).toHaveLength(MAX_ACTIVITY_TRAIL);
    expect(trail.trail.at(-1)?.from).toBe(`dlq-${MAX_ACTIVITY_TRAIL - 1}`);
    expect(trail.trailOmitted).toBe(5);
    expect(trail.trail[0]!.consumer).toHaveLength(MAX_TRAIL_TEXT);
    expect(ActivityEntrySchema.safeParse(entry(trail)).success).toBe(true);
    // A trail longer than the bound is not a valid entry (a hand-edited log line is dropped).
    const tooLong = { trail: [...trail.trail, { from: 'a', to: 'b' }] };
    expect(ActivityEntrySchema.safeParse(entry(tooLong)).success).toBe(false);
  });
});
