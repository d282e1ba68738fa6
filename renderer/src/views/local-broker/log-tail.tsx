/**
 * The local broker's output, live: the supervisor's last 500 lines (`getLocalBrokerLogs`), then
 * the `localBrokerLog` stream, capped at the same 500. A level filter and a search box narrow
 * what is shown (the count says how many of the kept lines pass); new lines keep arriving.
 * Follows the end unless scrolled up.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { BrokerLogLineView } from '../../../../shared/console-api-local';
import type { ConsoleClient } from '../../api/console-client';
import { filterLogLines, LEVEL_CHOICES, readLogLine } from './log-tail-model';

const MAX_LINES = 500;

export function LogTail({ client }: { client: ConsoleClient }) {
  const [lines, setLines] = useState<BrokerLogLineView[]>([]);
  const [minLevel, setMinLevel] = useState(0);
  const [search, setSearch] = useState('');
  const box = useRef<HTMLPreElement>(null);
  const follow = useRef(true);

  useEffect(() => {
    let live = true;
    // The fetched tail and the stream overlap, and a stream that reconnects under load can
    // deliver a line again (seen once in CI): keep each line once, by time, stream and text.
    const key = (l: BrokerLogLineView): string => `${l.at}|${l.stream}|${l.line}`;
    const stop = client.api.on('localBrokerLog', ({ lines: added }) =>
      setLines((old) => {
        const kept = new Set(old.map(key));
        const fresh = added.filter((l) => !kept.has(key(l)));
        return fresh.length === 0 ? old : [...old, ...fresh].slice(-MAX_LINES);
      }),
    );
    void client.api.getLocalBrokerLogs({}).then((result) => {
      if (!live || !result.ok) return;
      const fetched = new Set(result.value.lines.map(key));
      setLines((old) =>
        [...result.value.lines, ...old.filter((l) => !fetched.has(key(l)))].slice(-MAX_LINES),
      );
    });
    return () => {
      live = false;
      stop();
    };
  }, [client]);

  const read = useMemo(() => lines.map(readLogLine), [lines]);
  const shown = useMemo(() => filterLogLines(read, { minLevel, search }), [read, minLevel, search]);
  const filtering = minLevel > 0 || search.trim() !== '';

  useEffect(() => {
    const el = box.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [shown]);

  const empty =
    lines.length === 0
      ? 'No broker output yet.'
      : 'No line matches the filter (new lines are still collected).';
  return (
    <>
      <div className="log-filter" role="search" aria-label="Filter the log">
        <label className="field">
          Level
          <select
            value={minLevel}
            onChange={(e) => setMinLevel(Number(e.target.value))}
            data-testid="local-log-level"
          >
            {LEVEL_CHOICES.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <label className="field field--grow">
          Search
          <input
            type="search"
            value={search}
            placeholder="e.g. refused"
            onChange={(e) => setSearch(e.target.value)}
            data-testid="local-log-search"
          />
        </label>
        <span className="muted log-filter__count" aria-live="polite" data-testid="local-log-count">
          {filtering ? `${shown.length} of ${lines.length} lines` : `${lines.length} lines`}
        </span>
      </div>
      <pre
        ref={box}
        className="log-tail"
        data-testid="local-log"
        data-lines={lines.length}
        data-shown={shown.length}
        onScroll={(e) => {
          const el = e.currentTarget;
          follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {shown.length === 0 ? empty : shown.map((l) => l.text).join('\n')}
      </pre>
    </>
  );
}
