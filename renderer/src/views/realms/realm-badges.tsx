/** The realm list of a connection, one row per realm with its requirement badges (§3.5, §9). */
import type { ConsumerAccess, RealmSummary } from '../../../../shared/console-api';
import { StatusBadge, type BadgeTone } from '../../components/status-badge';
import { formatDuration } from '../../format';

/** What each consumer policy admits (issue 20): the badge's words and colour. */
export const CONSUMER_ACCESS: Record<ConsumerAccess, { label: string; tone: BadgeTone }> = {
  open: { label: 'anyone can consume', tone: 'busy' },
  token: { label: 'consumers need a token', tone: 'ok' },
  'token-or-key': { label: 'consumers need a token or key', tone: 'ok' },
  tokenless: { label: 'token-less consumers allowed (reference mode)', tone: 'bad' },
};

/** Who may read the realm: a token, a token or the key, or anyone (open / reference mode). */
export function ConsumerAccessBadge({ realm }: { realm: RealmSummary }) {
  const { label, tone } = CONSUMER_ACCESS[realm.consumerAccess];
  return <StatusBadge label={label} tone={tone} testId={`realm-consumers-${realm.name}`} />;
}

/** Every badge of a realm: auth, consumers, lifetime (a live countdown), keys, acceptance. */
export function RealmBadges({ realm, now }: { realm: RealmSummary; now: number }) {
  const remaining = realm.expiresAt === null ? null : Math.max(0, (realm.expiresAt - now) / 1000);
  return (
    <span className="realm-row__badges">
      <StatusBadge
        label={realm.authRequired ? 'auth required' : 'open'}
        tone={realm.authRequired ? 'ok' : 'busy'}
      />
      <ConsumerAccessBadge realm={realm} />
      {realm.ephemeral ? (
        <StatusBadge
          label={remaining === null ? 'ephemeral' : `ephemeral · ${formatDuration(remaining)} left`}
          tone={remaining !== null && remaining < 60 ? 'bad' : 'busy'}
          testId={`realm-countdown-${realm.name}`}
        />
      ) : (
        <StatusBadge label="permanent" tone="idle" />
      )}
      {realm.keyConfigured && (
        <StatusBadge label={realm.keyRequired ? 'key required' : 'key set'} tone="ok" />
      )}
      {!realm.keyConfigured && realm.keyRequired && (
        <StatusBadge label="key required · none set" tone="bad" />
      )}
      {realm.managerKeyConfigured && <StatusBadge label="manager key" tone="ok" />}
      <StatusBadge
        label={realm.acceptanceRequired ? 'acceptance required' : 'producers open'}
        tone={realm.acceptanceRequired ? 'ok' : 'idle'}
      />
    </span>
  );
}

/** A realm in a list: its name and its badges. */
export function RealmRow({ realm, now }: { realm: RealmSummary; now: number }) {
  return (
    <li className="realm-row" data-testid={`realm-${realm.name}`}>
      <span className="realm-row__name">{realm.name}</span>
      <RealmBadges realm={realm} now={now} />
    </li>
  );
}
