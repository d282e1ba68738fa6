/**
 * Splits a byte stream into lines while keeping at most `maxBytes` of each line: the rest of a
 * long line is discarded as it arrives, never buffered. Each line is decoded from its own copied
 * bytes, so it holds no reference to the stream's chunks — unlike `line.slice(0, n)` of a
 * readline line, which keeps the whole original string alive (issue 8 item 15: twenty 10 MiB
 * lines retained 208 MiB).
 *
 * A cut line ends with `…`; a cut inside a UTF-8 sequence drops the incomplete character.
 */
export interface CappedLineOptions {
  /** Bytes kept per line (excluding the newline). */
  maxBytes: number;
  onLine: (line: string) => void;
}

/** Feeds `stream` through a `CappedLineSplitter`; a last line without newline is emitted at end. */
export function readCappedLines(stream: NodeJS.ReadableStream, options: CappedLineOptions): void {
  const splitter = new CappedLineSplitter(options);
  stream.on('data', (chunk: Buffer | string) => splitter.push(chunk));
  stream.on('end', () => splitter.end());
  // A stream error (the child went away) ends the output; the exit is reported elsewhere.
  stream.on('error', () => splitter.end());
}

export class CappedLineSplitter {
  private readonly kept: Buffer;
  private keptBytes = 0;
  private truncated = false;

  constructor(private readonly options: CappedLineOptions) {
    this.kept = Buffer.alloc(options.maxBytes);
  }

  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(0x0a, start);
      const end = newline === -1 ? bytes.length : newline;
      this.keep(bytes, start, end);
      if (newline === -1) return;
      this.emit();
      start = newline + 1;
    }
  }

  /** Emits a pending partial line, if any. */
  end(): void {
    if (this.keptBytes > 0 || this.truncated) this.emit();
  }

  private keep(bytes: Buffer, start: number, end: number): void {
    const room = this.options.maxBytes - this.keptBytes;
    const take = Math.min(room, end - start);
    if (take > 0) {
      bytes.copy(this.kept, this.keptBytes, start, start + take);
      this.keptBytes += take;
    }
    if (end - start > take) this.truncated = true;
  }

  private emit(): void {
    let length = this.keptBytes;
    if (length > 0 && this.kept[length - 1] === 0x0d) length -= 1; // CRLF
    if (this.truncated) length = completeUtf8Length(this.kept, length);
    // toString copies the bytes into a fresh string: nothing refers back to the chunks.
    const text = this.kept.toString('utf8', 0, length);
    const line = this.truncated ? `${text}…` : text;
    this.keptBytes = 0;
    this.truncated = false;
    this.options.onLine(line);
  }
}

/** Length of `buf[0, length)` without a trailing incomplete UTF-8 sequence. */
function completeUtf8Length(buf: Buffer, length: number): number {
  let i = length - 1;
  // Walk back over at most three continuation bytes to the sequence's lead byte.
  while (i >= 0 && length - i <= 4 && ((buf[i] as number) & 0xc0) === 0x80) i -= 1;
  if (i < 0) return length;
  const lead = buf[i] as number;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return length - i >= need ? length : i;
}
