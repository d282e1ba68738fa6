/**
 * The top bar's connection switcher: picks `selectedConnectionId` (every view works on it) and
 * always shows the selected connection's state — `stale` while the console host is unreachable,
 * never a green state it cannot vouch for.
 */
import { selectedBrokerState, useAppStore } from '../store/app-store';
import { StatusBadge, type BadgeTone } from './status-badge';

const TONES: Record<string, BadgeTone> = {
  online: 'ok',
  running: 'ok',
  starting: 'busy',
  restarting: 'busy',
  unknown: 'idle',
  stopped: 'idle',
  unreachable: 'bad',
  refused: 'bad',
  failed: 'bad',
};

export function ConnectionSwitcher() {
  const connections = useAppStore((s) => s.connections);
  const selectedId = useAppStore((s) => s.selectedConnectionId);
  const select = useAppStore((s) => s.selectConnection);
  const linkOnline = useAppStore((s) => s.connection === 'online');
  const liveState = useAppStore(selectedBrokerState);
  const label = linkOnline ? liveState : 'stale';

  return (
    <div className="switcher">
      <label className="switcher__label" htmlFor="connection-switcher">
        Broker
      </label>
      <select
        id="connection-switcher"
        className="switcher__select"
        value={selectedId}
        onChange={(event) => select(event.target.value)}
        data-testid="connection-switcher"
      >
        {connections.length === 0 && <option value={selectedId}>Local broker</option>}
        {connections.map((connection) => (
          <option key={connection.id} value={connection.id}>
            {connection.name}
          </option>
        ))}
      </select>
      <StatusBadge
        label={label}
        tone={linkOnline ? (TONES[liveState] ?? 'idle') : 'idle'}
        testId="connection-state"
      />
    </div>
  );
}
