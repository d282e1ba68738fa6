/** The realm list of a connection, one row per realm with its requirement badges (§3.5, §9). */
import type { RealmSummary } from '../../../shared/console-api';
import { StatusBadge } from '../components/status-badge';
import { formatDuration } from '../format';

export function RealmRow({ realm, now }: { realm: RealmSummary; now: number }) {
  const remaining = realm.expiresAt === null ? null : Math.max(0, (realm.expiresAt - now) / 1000);
  return (
    <li className="realm-row" data-testid={`realm-${realm.name}`}>
      <span className="realm-row__name">{realm.name}</span>
      <span className="realm-row__badges">
        <StatusBadge
          label={realm.authRequired ? 'auth required' : 'open'}
          tone={realm.authRequired ? 'ok' : 'busy'}
        />
        {realm.ephemeral ? (
          <StatusBadge
            label={
              remaining === null ? 'ephemeral' : `ephemeral · ${formatDuration(remaining)} left`
            }
            tone="busy"
          />
        ) : (
          <StatusBadge label="permanent" tone="idle" />
        )}
        {realm.keyConfigured && (
          <StatusBadge label={realm.keyRequired ? 'key required' : 'key set'} tone="ok" />
        )}
        {realm.managerKeyConfigured && <StatusBadge label="manager key" tone="ok" />}
        <StatusBadge
          label={realm.acceptanceRequired ? 'acceptance required' : 'producers open'}
          tone={realm.acceptanceRequired ? 'ok' : 'idle'}
        />
      </span>
    </li>
  );
}
