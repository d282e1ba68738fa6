/**
 * The local broker's log lines as the Local broker view shows them: pino JSON records read as
 * time, level, message and fields; other output as it is. Filtering by level and text is done
 * here, on the lines kept (at most 500), without touching the stream.
 */
import type { BrokerLogLineView } from '../../../../shared/console-api-local';

/** pino's numeric levels. */
export const LOG_LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** The level filter's choices: the lowest level shown (0 = everything). */
export const LEVEL_CHOICES = [
  { value: 0, label: 'All levels' },
  { value: 20, label: 'Debug and above' },
  { value: 30, label: 'Info and above' },
  { value: 40, label: 'Warnings and errors' },
  { value: 50, label: 'Errors only' },
] as const;

/** One line ready to show: its level (pino's number) and its text. */
export interface ShownLogLine {
  level: number;
  text: string;
}

/**
 * A line as `HH:MM:SS level msg {fields}` with its level. Output that is not a pino record
 * counts as info on stdout and as an error on stderr (a crash's stack trace, for instance).
 */
export function readLogLine(line: BrokerLogLineView): ShownLogLine {
  const time = new Date(line.at).toLocaleTimeString('en-GB');
  try {
    const record = JSON.parse(line.line) as unknown;
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new Error();
    const {
      level: raw,
      time: _t,
      pid: _p,
      hostname: _h,
      msg,
      ...rest
    } = record as Record<string, unknown>;
    const level = typeof raw === 'number' ? raw : 30;
    const name = LOG_LEVEL_NAMES[level] ?? 'info';
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
    return {
      level,
      text: `${time} ${name.padEnd(5)} ${typeof msg === 'string' ? msg : ''}${extra}`,
    };
  } catch {
    const err = line.stream === 'stderr';
    return { level: err ? 50 : 30, text: `${time} ${err ? 'err  ' : 'out  '} ${line.line}` };
  }
}

/** The line's text alone (see `readLogLine`). */
export function formatLogLine(line: BrokerLogLineView): string {
  return readLogLine(line).text;
}

/** What the filter bar asks for: the lowest level shown, and text to look for (any case). */
export interface LogFilter {
  minLevel: number;
  search: string;
}

/** The lines that pass `filter`, in order. */
export function filterLogLines(lines: readonly ShownLogLine[], filter: LogFilter): ShownLogLine[] {
  const needle = filter.search.trim().toLowerCase();
  return lines.filter(
    (l) => l.level >= filter.minLevel && (needle === '' || l.text.toLowerCase().includes(needle)),
  );
}
