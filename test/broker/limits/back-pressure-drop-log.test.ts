/**
 * `DropLog` (issue 21 item 10): dropped plain copies are logged per socket, the first at once and
 * the rest of the window in one line with the count; a socket quiet for a window is forgotten.
 */
import { describe, expect, it } from 'vitest';
import { DropLog } from '../../../broker/limits/back-pressure';
import type { BrokerSocket } from '../../../broker/transport/socket-types';
import { captureLogs } from '../../support/log-capture';

const sock = (id: string): BrokerSocket => ({ id }) as unknown as BrokerSocket;

describe('DropLog', () => {
  it('logs the first drop per socket at once and sums the rest once per window', () => {
    const log = captureLogs('warn');
    const drops = new DropLog(log.logger, 60_000);
    try {
      for (let i = 0; i < 5; i++) drops.drop('r1', sock('a'), { buffered_bytes: 9 });
      drops.drop('r2', sock('b'), {});
      expect(log.lines.map((l) => [l.socket, l.realm, l.dropped])).toEqual([
        ['a', 'r1', 1],
        ['b', 'r2', 1],
      ]);
      expect(log.lines[0]).toMatchObject({ buffered_bytes: 9 });
      drops.flush(); // end of the window: one line for a's 4 others, none for b
      expect(log.lines.slice(2).map((l) => [l.socket, l.realm, l.dropped])).toEqual([
        ['a', 'r1', 4],
      ]);
      expect(log.lines[2]!.msg).toContain('4 more in the last 60 s');
      drops.drop('r1', sock('a'), {}); // still within its remembered window: counted
      expect(log.lines).toHaveLength(3);
      drops.flush();
      expect(log.lines).toHaveLength(4);
      drops.flush(); // a quiet window: forgotten
      drops.drop('r1', sock('a'), {});
      expect(log.lines).toHaveLength(5);
      expect(log.lines[4]).toMatchObject({ socket: 'a', dropped: 1 });
    } finally {
      drops.close();
    }
  });
});
