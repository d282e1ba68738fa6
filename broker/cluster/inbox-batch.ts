/**
 * The messages a node relays in one turn of its event loop, grouped per inbox, so each inbox
 * gets them as one stream entry (docs/cluster.md "What is relayed"): field `m` holds the
 * messages' JSON texts joined by line feeds, field `n` the inbox's message count
 * (inbox-append.ts).
 *
 * Why: with one `XADD` per message, Redis, the sender's ioredis and the reader all pay per
 * message for what is per batch (the command, the entry id, a blocked reader woken, an entry
 * parsed). Grouping the messages of one turn keeps the latency of the message (the turn ends
 * at once) and keeps order: a node adds its messages on one connection in routing order, one
 * entry per inbox per turn, its messages in routing order. One field, not one per message:
 * Redis copies a listpack entry of many large fields over and over as it grows.
 *
 * Bounds: an entry holds at most `MAX_ENTRY_MESSAGES` messages and about `MAX_ENTRY_BYTES` of
 * text (UTF-16 length; a larger message is stored by reference before it gets here); past
 * either, the next message starts a new entry.
 */

import { COUNT_FIELD, ENTRY_FIELD, MESSAGE_SEPARATOR } from './inbox-append';

/** Most messages in one inbox entry. */
export const MAX_ENTRY_MESSAGES = 256;
/** About the most text in one inbox entry, in characters (a message over it gets one alone). */
export const MAX_ENTRY_BYTES = 1024 * 1024;

interface Pending {
  /** Finished entries' messages, then the open entry's. */
  entries: string[][];
  bytes: number;
}

export class InboxBatch {
  private readonly inboxes = new Map<string, Pending>();
  private scheduled = false;

  /** `schedule()` is called once per batch, when its first message is added. */
  constructor(private readonly schedule: () => void) {}

  /** Adds `text` (JSON text) to `inbox`'s entry of this turn. */
  add(inbox: string, text: string): void {
    let pending = this.inboxes.get(inbox);
    if (pending === undefined) {
      pending = { entries: [[]], bytes: 0 };
      this.inboxes.set(inbox, pending);
    }
    let open = pending.entries[pending.entries.length - 1]!;
    if (
      open.length > 0 &&
      (open.length >= MAX_ENTRY_MESSAGES || pending.bytes + text.length > MAX_ENTRY_BYTES)
    ) {
      open = [];
      pending.entries.push(open);
      pending.bytes = 0;
    }
    open.push(text);
    pending.bytes += text.length + 1;
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule();
    }
  }

  /**
   * Hands each entry (inbox, its `m` value: the messages joined by `MESSAGE_SEPARATOR`, its
   * message count) to `add`, in order, and empties.
   */
  drain(add: (inbox: string, messages: string, count: number) => void): void {
    this.scheduled = false;
    const inboxes = [...this.inboxes];
    this.inboxes.clear();
    for (const [inbox, pending] of inboxes) {
      for (const texts of pending.entries) add(inbox, texts.join(MESSAGE_SEPARATOR), texts.length);
    }
  }
}

/** An inbox entry read back: its messages in order, and the inbox counter `n` if it has one. */
export interface InboxEntry {
  texts: string[];
  /** Messages added to the inbox up to and including this entry's (inbox-append.ts). */
  added: number | null;
}

/** Reads an entry's field-value list (`[field, value, …]`). */
export function readEntry(fields: readonly string[]): InboxEntry {
  const texts: string[] = [];
  let added: number | null = null;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const field = fields[i];
    if (field === ENTRY_FIELD) {
      for (const text of fields[i + 1]!.split(MESSAGE_SEPARATOR)) if (text !== '') texts.push(text);
    } else if (field === COUNT_FIELD) {
      const n = Number(fields[i + 1]);
      if (Number.isSafeInteger(n) && n >= 0) added = n;
    }
  }
  return { texts, added };
}

/** The message texts of an inbox entry's field-value list, in order. */
export function entryTexts(fields: readonly string[]): string[] {
  return readEntry(fields).texts;
}
