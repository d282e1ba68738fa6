/**
 * The local broker's output, live: the supervisor's last 500 lines (`getLocalBrokerLogs`), then
 * the `localBrokerLog` stream, capped at the same 500. Follows the end unless scrolled up.
 */
import { useEffect, useRef, useState } from 'react';
import type { BrokerLogLineView } from '../../../shared/console-api-local';
import type { ConsoleClient } from '../api/console-client';

const MAX_LINES = 500;

/** A pino JSON line as `HH:MM:SS level msg`, other lines as they are. */
export function formatLogLine(line: BrokerLogLineView): string {
  const time = new Date(line.at).toLocaleTimeString('en-GB');
  try {
    const record = JSON.parse(line.line) as { level?: number; msg?: string } & Record<
      string,
      unknown
    >;
    const level =
      { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }[
        record.level ?? 30
      ] ?? 'info';
    const { level: _l, time: _t, pid: _p, hostname: _h, msg, ...rest } = record;
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
    return `${time} ${level.padEnd(5)} ${msg ?? ''}${extra}`;
  } catch {
    return `${time} ${line.stream === 'stderr' ? 'err  ' : 'out  '} ${line.line}`;
  }
}

export function LogTail({ client }: { client: ConsoleClient }) {
  const [lines, setLines] = useState<BrokerLogLineView[]>([]);
  const box = useRef<HTMLPreElement>(null);
  const follow = useRef(true);

  useEffect(() => {
    let live = true;
    const stop = client.api.on('localBrokerLog', ({ lines: added }) =>
      setLines((old) => [...old, ...added].slice(-MAX_LINES)),
    );
    void client.api.getLocalBrokerLogs({}).then((result) => {
      if (!live || !result.ok) return;
      // Lines streamed before this answer may also be in it: keep each once.
      const key = (l: BrokerLogLineView): string => `${l.at}|${l.stream}|${l.line}`;
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

  useEffect(() => {
    const el = box.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <pre
      ref={box}
      className="log-tail"
      data-testid="local-log"
      data-lines={lines.length}
      onScroll={(e) => {
        const el = e.currentTarget;
        follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {lines.length === 0 ? 'No broker output yet.' : lines.map(formatLogLine).join('\n')}
    </pre>
  );
}
