/**
 * Resources (issue 27, "Broker resources and alarms"): the selected broker's raised alarms
 * first, then its memory, event-loop delay, open file descriptors, store files, DLQ, durable
 * queue staleness and free disk, read with `getResources` every 5 s. A broker without
 * `resources` (a plain tyo-mq broker, an older Switchboard) gets one line saying so. The
 * thresholds are the broker's `alarms.*` settings (docs/configuration.md); desktop
 * notifications of new alarms are switched on here (alarm-watch.ts sends them).
 */
import { useCallback, useState } from 'react';
import type { Alarm, BrokerResources } from '../../../../shared/broker-resources';
import type { ConsoleClient } from '../../api/console-client';
import { ConnectionProblem } from '../../components/connection-problem';
import { Page } from '../../components/page';
import { StatCard } from '../../components/stat-card';
import { StatusBadge } from '../../components/status-badge';
import { formatBytes, formatCount, formatDuration } from '../../format';
import { useConnectionId } from '../../hooks/use-connection-id';
import { usePolled } from '../../hooks/use-polled';
import {
  askNotificationPermission,
  notificationPermission,
} from '../requests/request-notifications';
import '../../styles/resources.css';

/** Refresh period, ms (the broker reuses a reading for 2 s). */
const REFRESH_MS = 5_000;

const ms = (v: number) => `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`;

function AlarmList({ alarms }: { alarms: Alarm[] }) {
  if (alarms.length === 0) {
    return (
      <p className="panel resources-ok" data-testid="resources-no-alarms">
        <StatusBadge label="no alarms" tone="ok" /> Every threshold is met.
      </p>
    );
  }
  return (
    <ul className="resources-alarms" data-testid="resources-alarms">
      {alarms.map((a) => (
        <li
          key={a.id}
          className={`panel resources-alarm resources-alarm--${a.level}`}
          data-testid="resources-alarm"
          data-alarm={a.id}
          role="alert"
        >
          <StatusBadge label={a.level} tone={a.level === 'critical' ? 'bad' : 'busy'} />
          <span className="resources-alarm__text">{a.message}</span>
          <span className="resources-alarm__since">
            since {new Date(a.since).toLocaleTimeString('en-GB')}
          </span>
        </li>
      ))}
    </ul>
  );
}

function Figures({ r }: { r: BrokerResources }) {
  const disk = r.disk;
  const storeBytes = r.store.files.reduce((sum, f) => sum + f.bytes, 0);
  return (
    <div className="grid">
      <StatCard
        label="Memory (RSS)"
        testId="resources-rss"
        rawValue={r.memory.rss_bytes}
        value={formatBytes(r.memory.rss_bytes)}
        detail={`heap ${formatBytes(r.memory.heap_used_bytes)} of ${formatBytes(r.memory.heap_total_bytes)}`}
      />
      <StatCard
        label="Event-loop delay p99"
        testId="resources-loop"
        rawValue={r.event_loop.p99_ms}
        value={ms(r.event_loop.p99_ms)}
        detail={`p50 ${ms(r.event_loop.p50_ms)} · max ${ms(r.event_loop.max_ms)}`}
      />
      <StatCard
        label="Open files"
        testId="resources-fds"
        rawValue={r.open_fds}
        value={r.open_fds === null ? '—' : formatCount(r.open_fds)}
        detail={`up ${formatDuration(r.uptime_s)}`}
      />
      <StatCard
        label={`Store (${r.store.backend})`}
        testId="resources-store"
        rawValue={storeBytes}
        value={r.store.files.length > 0 ? formatBytes(storeBytes) : 'in memory'}
        detail={`${formatCount(r.store.dlq_entries)} dead-lettered · ${formatCount(r.store.queues)} durable queues`}
      />
      <StatCard
        label="Oldest ready message"
        testId="resources-oldest"
        rawValue={r.store.oldest_ready_age_ms}
        value={
          r.store.oldest_ready_age_ms === null
            ? 'none'
            : formatDuration(r.store.oldest_ready_age_ms / 1000)
        }
        detail="across this broker's durable queues"
      />
      <StatCard
        label="Free disk"
        testId="resources-disk"
        rawValue={disk?.free_bytes ?? null}
        value={disk ? formatBytes(disk.free_bytes) : '—'}
        detail={
          disk
            ? `of ${formatBytes(disk.total_bytes)} · reserve ${formatBytes(disk.reserve_bytes)}${disk.refusing_writes ? ' · refusing new copies' : ''}`
            : 'the store is not on local disk'
        }
      />
    </div>
  );
}

function StoreFiles({ r }: { r: BrokerResources }) {
  if (r.store.files.length === 0) return null;
  return (
    <table className="resources-files" data-testid="resources-files">
      <caption>Store files</caption>
      <thead>
        <tr>
          <th scope="col">File</th>
          <th scope="col">Path</th>
          <th scope="col">Size</th>
        </tr>
      </thead>
      <tbody>
        {r.store.files.map((f) => (
          <tr key={f.name}>
            <td>{f.name}</td>
            <td>
              <code>{f.path}</code>
            </td>
            <td data-bytes={f.bytes}>{formatBytes(f.bytes)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ResourcesView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const call = useCallback(() => client.api.getResources({ connectionId }), [client, connectionId]);
  const { value, error } = usePolled(call, REFRESH_MS);
  const [permission, setPermission] = useState(notificationPermission);
  const r = value?.state === 'ok' ? value.resources : null;
  const intro = r
    ? `Updated ${new Date(r.at).toLocaleTimeString('en-GB')}. Thresholds: the broker's alarms.* settings.`
    : 'Memory, event loop, files, store and disk of the broker, with the alarms it raises.';
  return (
    <Page testId="resources-view" title="Resources and alarms" intro={intro}>
      <ConnectionProblem
        error={error}
        connectionId={connectionId}
        what="its resources"
        testId="resources-problem"
      />
      {value?.state === 'unsupported' && (
        <p className="panel notice" data-testid="resources-unsupported">
          This broker does not offer resources and alarms (a plain tyo-mq broker or an older
          Switchboard): use its own monitoring.
        </p>
      )}
      {r && (
        <>
          <AlarmList alarms={r.alarms} />
          <Figures r={r} />
          <StoreFiles r={r} />
        </>
      )}
      <p className="resources-notify">
        {permission === 'granted' ? (
          <span data-testid="resources-notify-on">Desktop notifications of new alarms are on.</span>
        ) : permission === 'unsupported' ? null : (
          <button
            type="button"
            className="button"
            data-testid="resources-notify"
            disabled={permission === 'denied'}
            onClick={() => void askNotificationPermission().then(setPermission)}
          >
            {permission === 'denied' ? 'Notifications blocked' : 'Notify me of new alarms'}
          </button>
        )}
      </p>
    </Page>
  );
}
