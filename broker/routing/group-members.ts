/**
 * Consumer-group members that are not tyo-mq subscriptions: MQTT shared subscriptions
 * (`$share/<group>/<filter>`, MQTT 5.0 §4.8.2; broker/mqtt/shared-subscriptions.ts) join the
 * tyo-mq consumer group of the same name in the same realm (`spec/protocol-core.md` §12), so
 * one message reaches one member of the union, chosen by the group's round-robin counter.
 */
import type { ProducedMessage } from './produced-message';

/** One member of a consumer group outside the realm registry; always live while listed. */
export interface ExternalGroupMember {
  /** The group's name (tyo-mq `group`, MQTT ShareName), exact case. */
  readonly group: string;
  /** Hands `msg` to this member (never throws; failures are the member's to handle). */
  deliver(msg: ProducedMessage): void;
}

/**
 * The external members a non-broadcast message of its own realm may reach (a member appears
 * once per group); null or empty when none. Called on every routed message: keep it cheap.
 */
export type GroupMemberSource = (msg: ProducedMessage) => readonly ExternalGroupMember[] | null;

/** The members of every source for `msg`, by group; null when there are none. */
export function externalMembersOf(
  sources: readonly GroupMemberSource[],
  msg: ProducedMessage,
): Map<string, ExternalGroupMember[]> | null {
  let out: Map<string, ExternalGroupMember[]> | null = null;
  for (const source of sources) {
    const members = source(msg);
    if (!members) continue;
    for (const m of members) {
      out ??= new Map();
      const list = out.get(m.group);
      if (list) list.push(m);
      else out.set(m.group, [m]);
    }
  }
  return out;
}
