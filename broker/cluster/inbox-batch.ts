/**
 * The messages a node relays in one turn of its event loop, grouped per inbox, so each inbox
 * gets them as one stream entry of several `m` fields (docs/cluster.md "What is relayed").
 *
 * Why: with one `XADD` per message, Redis, the sender's ioredis and the reader all pay per
 * message for what is per batch (the command, the entry id, a blocked reader woken, an entry
 * parsed). Grouping the messages of one turn keeps the latency of the message (the turn ends
 * at once) and keeps order: a node adds its messages on one connection in routing order, one
 * entry per inbox per turn, and each entry's fields are in routing order.
 *
 * Bounds: an entry holds at most `MAX_ENTRY_MESSAGES` messages and about `MAX_ENTRY_BYTES` of
 * text (UTF-16 length; a larger message is stored by reference before it gets here); past
 * either, the next message starts a new entry.
 */

import { COUNT_FIELD } from './inbox-append';

/** Most messages in one inbox entry. */
export const MAX_ENTRY_MESSAGES = 256;
/** About the most text in one inbox entry, in characters (a message over it gets one alone). */
export const MAX_ENTRY_BYTES = 1024 * 1024;

/** The field name of a message in an inbox entry. */
export const ENTRY_FIELD = 'm';

interface Pending {
  /** `XADD` field-value arguments of finished entries, then of the open one. */
  entries: string[][];
  bytes: number;
}

export class InboxBatch {
  private readonly inboxes = new Map<string, Pending>();
  private scheduled = false;

  /** `schedule()` is called once per batch, when its first message is added. */
  constructor(private readonly schedule: () => void) {}

  /** Adds `text` to `inbox`'s entry of this turn. */
  add(inbox: string, text: string): void {
    let pending = this.inboxes.get(inbox);
    if (pending === undefined) {
      pending = { entries: [[]], bytes: 0 };
      this.inboxes.set(inbox, pending);
    }
    let open = pending.entries[pending.entries.length - 1]!;
    if (
      open.length > 0 &&
      (open.length >= MAX_ENTRY_MESSAGES * 2 || pending.bytes + text.length > MAX_ENTRY_BYTES)
    ) {
      open = [];
      pending.entries.push(open);
      pending.bytes = 0;
    }
    open.push(ENTRY_FIELD, text);
    pending.bytes += text.length;
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule();
    }
  }

  /**
   * Hands each entry (inbox, its field-value arguments, its message count) to `add`, in
   * order, and empties.
   */
  drain(add: (inbox: string, fields: string[], messages: number) => void): void {
    this.scheduled = false;
    const inboxes = [...this.inboxes];
    this.inboxes.clear();
    for (const [inbox, pending] of inboxes) {
      for (const fields of pending.entries) add(inbox, fields, fields.length / 2);
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
    if (field === ENTRY_FIELD) texts.push(fields[i + 1]!);
    else if (field === COUNT_FIELD) {
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
