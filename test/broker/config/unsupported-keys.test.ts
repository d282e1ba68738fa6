/**
 * Keys the broker accepts but ignores (issue 22 item 3) are logged when a reload brings them in,
 * not only at start, with the message the console's settings editor shows.
 */
import { describe, expect, it } from 'vitest';
import { LiveSettings } from '../../../broker/config/live-settings';
import { parseSettings } from '../../../broker/config/load-settings';
import { UNSUPPORTED_KEY_MESSAGE } from '../../../broker/config/settings-schema';
import { captureLogs } from '../../support/log-capture';

describe('unsupported settings keys on reload', () => {
  it('logs each key a reload brings in, once', () => {
    const log = captureLogs('warn');
    const live = new LiveSettings(
      parseSettings({ limits: { max_connections: 5 } }, {}),
      log.logger,
    );
    live.replace(parseSettings({ limits: { max_connections: 6, max_topics: 2 } }, {}));
    live.replace(parseSettings({ limits: { max_connections: 6, max_topics: 2 } }, {}));
    const logged = log.lines.filter((l) => l.msg === UNSUPPORTED_KEY_MESSAGE).map((l) => l.key);
    expect(logged).toEqual(['limits.max_topics']);
  });
});
