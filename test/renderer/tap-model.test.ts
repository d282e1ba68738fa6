/**
 * The live tap's page-side helpers (issue 22, item 12): what the empty list says in each case,
 * the target and access in words, and the CSV / JSON export of the captured rows.
 */
import { describe, expect, it } from 'vitest';
import type { TapMessage } from '../../shared/console-api-tap';
import {
  csvCell,
  tapExportName,
  tapRowsToCsv,
  tapRowsToJson,
} from '../../renderer/src/views/tap/tap-export';
import {
  TapModel,
  describeTapAccess,
  describeTapTarget,
  tapEmptyText,
} from '../../renderer/src/views/tap/tap-model';
import { publishSummary } from '../../renderer/src/views/tap/publish-form';

const info = {
  tapId: 't1',
  connectionId: 'local',
  realm: 'fleet',
  subscriptionKey: 'tyo-mq-all-trucks/#',
  maxRatePerSec: 200,
  access: 'temporary' as const,
};

const message = (seq: number, over: Partial<TapMessage> = {}): TapMessage => ({
  seq,
  at: Date.UTC(2026, 11, 2, 7, 30, seq),
  event: `trucks/${seq}`,
  from: 'truck-7',
  payload: `{"n":${seq}}`,
  truncated: false,
  size: 8,
  msgId: null,
  ...over,
});

const batch = (messages: TapMessage[], received: number) => ({
  tapId: 't1',
  connectionId: 'local',
  messages,
  received,
  sampledOut: 0,
  ratePerSec: 1,
  state: 'running' as const,
  error: null,
});

describe('tap empty list text', () => {
  it('tells not started, waiting, paused, filtered and cleared apart', () => {
    const model = new TapModel(0);
    expect(tapEmptyText(model.snapshot())).toBe('Start a tap to see messages here.');
    model.started(info);
    expect(tapEmptyText(model.snapshot())).toMatch(/^Waiting for messages/);
    model.setPaused(true);
    expect(tapEmptyText(model.snapshot())).toMatch(/^Paused: messages that arrive are counted/);
    model.apply(batch([message(0)], 1));
    model.apply(batch([message(1)], 2));
    expect(tapEmptyText(model.snapshot())).toBe(
      'Paused: 2 messages arrived since and are not shown. Resume to see new ones.',
    );
    model.setPaused(false);
    model.apply(batch([message(2), message(3)], 4));
    model.setFilter('nope');
    expect(tapEmptyText(model.snapshot())).toBe(
      'No row matches the filter "nope": none of the 2 kept messages contains it in its event,' +
        ' producer or payload.',
    );
    model.setFilter('');
    expect(tapEmptyText(model.snapshot())).toBeNull();
    model.clear();
    expect(tapEmptyText(model.snapshot())).toMatch(/^Cleared: 4 messages received so far/);
    model.dispose();
  });

  it('exports every kept row that passes the filter, not only the 100 shown', () => {
    const model = new TapModel(0);
    model.started(info);
    model.apply(
      batch(
        Array.from({ length: 150 }, (_, i) => message(i)),
        150,
      ),
    );
    model.setFilter(''); // publishes the snapshot now instead of on the render timer
    expect(model.snapshot().rows).toHaveLength(100);
    expect(model.kept()).toHaveLength(150);
    expect(model.kept()[0]?.seq).toBe(149);
    model.setFilter('trucks/14');
    expect(model.kept().map((m) => m.seq)).toEqual([
      149, 148, 147, 146, 145, 144, 143, 142, 141, 140, 14,
    ]);
    model.dispose();
  });
});

describe('tap words', () => {
  it('names the target and the access without internal keys', () => {
    expect(describeTapTarget({ kind: 'topic', pattern: 'trucks/#' })).toBe('topic trucks/#');
    expect(describeTapTarget({ kind: 'event', producer: 'TYO-MQ-ALL', event: 'ping' })).toBe(
      'event ping of any producer',
    );
    expect(describeTapTarget({ kind: 'event', producer: 'truck-7', event: 'TM-ALL' })).toBe(
      'every event of truck-7',
    );
    expect(describeTapAccess('temporary')).toBe('temporary token (revoked when the tap stops)');
  });

  it('says why a publish that was not guaranteed stored durable copies', () => {
    const result = {
      realm: 'fleet',
      event: 'orders/new',
      storedCopies: 2,
      at: 0,
      subscribers: null,
      realmConfigured: null,
    };
    expect(publishSummary(result, false)).toContain(
      '2 durable copies stored although not guaranteed: this event has durable subscribers',
    );
    expect(publishSummary(result, true)).toContain('2 durable copies stored (guaranteed');
    expect(publishSummary({ ...result, storedCopies: 0 }, false)).toContain(
      'no durable copy stored',
    );
  });

  // Trial finding 23: a publish nobody received read like any other.
  it('says when no subscriber received a message, and when the realm is not configured', () => {
    const result = { realm: 'nowhere', event: 'e', storedCopies: 0, at: 0 };
    expect(publishSummary({ ...result, subscribers: 0, realmConfigured: false }, false)).toMatch(
      /^Published e to nowhere at .* — no subscriber received it; realm nowhere is not configured on this broker · /,
    );
    expect(publishSummary({ ...result, subscribers: 2, realmConfigured: true }, false)).toContain(
      ' — 2 subscribers online · ',
    );
    expect(
      publishSummary({ ...result, subscribers: null, realmConfigured: null }, false),
    ).not.toContain('—');
  });
});

describe('tap export', () => {
  it('quotes CSV cells and defuses spreadsheet formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
  });

  it('writes CSV and JSON with ISO times, sizes and the cut flag', () => {
    const rows = [message(2, { truncated: true, size: 5_000_000, msgId: 'm-2' }), message(1)];
    const csv = tapRowsToCsv(rows).split('\r\n');
    expect(csv[0]).toBe('time,event,from,msg_id,size,truncated,payload');
    expect(csv[1]).toBe('2026-12-02T07:30:02.000Z,trucks/2,truck-7,m-2,5000000,true,"{""n"":2}"');
    expect(csv[2]).toBe('2026-12-02T07:30:01.000Z,trucks/1,truck-7,,8,false,"{""n"":1}"');
    const doc = JSON.parse(tapRowsToJson(rows, info, Date.UTC(2026, 11, 2, 8))) as {
      realm: string;
      exportedAt: string;
      messages: { event: string; size: number; truncated: boolean; payload: unknown }[];
    };
    expect(doc.realm).toBe('fleet');
    expect(doc.exportedAt).toBe('2026-12-02T08:00:00.000Z');
    expect(doc.messages[0]).toMatchObject({ event: 'trucks/2', size: 5_000_000, truncated: true });
    // Whole payloads are exported as values (like the DLQ export), cut ones as their text.
    expect(doc.messages[0]!.payload).toBe('{"n":2}');
    expect(doc.messages[1]!.payload).toEqual({ n: 1 });
    expect(tapExportName('fleet/east', Date.UTC(2026, 11, 2, 7, 35, 12), 'csv')).toBe(
      'tap-fleet_east-20261202-073512.csv',
    );
  });
});
