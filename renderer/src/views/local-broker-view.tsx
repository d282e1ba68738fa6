/**
 * Local broker: its state with Start / Stop / Restart, its socket.io and MQTT ports and data
 * directory, the live log tail, and the settings file editor.
 */
import { useState } from 'react';
import type { ErrorInfo } from '../../../shared/error-catalogue';
import type { ConsoleClient } from '../api/console-client';
import { ErrorBanner } from '../components/error-banner';
import { StatusBadge, type BadgeTone } from '../components/status-badge';
import { useAppStore } from '../store/app-store';
import '../styles/tap.css';
import '../styles/local-broker.css';
import { mqttPortText } from './local-ports';
import { LogTail } from './log-tail';
import { SettingsEditor } from './settings-editor';

const TONES: Record<string, BadgeTone> = {
  running: 'ok',
  starting: 'busy',
  restarting: 'busy',
  stopped: 'idle',
  failed: 'bad',
};

type Action = 'start' | 'stop' | 'restart';

export function LocalBrokerView({ client }: { client: ConsoleClient }) {
  const status = useAppStore((s) => s.localBroker);
  const applyLocalBroker = useAppStore((s) => s.applyLocalBroker);
  const [busy, setBusy] = useState<Action | null>(null);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const state = status?.state ?? 'stopped';
  // Console host gone: the last state is history, never shown as current (as on Overview).
  const stale = useAppStore((s) => s.connection === 'offline');

  const run = async (action: Action): Promise<void> => {
    setBusy(action);
    setError(null);
    const call =
      action === 'start'
        ? client.api.startLocalBroker({})
        : action === 'stop'
          ? client.api.stopLocalBroker({})
          : client.api.restartLocalBroker({});
    const result = await call;
    if (result.ok) applyLocalBroker(result.value);
    else setError(result.error);
    setBusy(null);
  };

  const active = state === 'running' || state === 'starting' || state === 'restarting';
  return (
    <main className="page" data-testid="local-broker-view">
      <header className="page__header">
        <div>
          <h2 className="page__title">Local broker</h2>
          <p className="muted">The broker this console runs on this machine.</p>
        </div>
        <div className="page__actions local-actions">
          <StatusBadge
            label={stale ? `stale (was ${state})` : state}
            tone={stale ? 'idle' : (TONES[state] ?? 'idle')}
            testId="local-state"
          />
          <button
            type="button"
            className="button"
            disabled={busy !== null || active}
            onClick={() => void run('start')}
            data-testid="local-start"
          >
            {busy === 'start' ? 'Starting…' : 'Start'}
          </button>
          <button
            type="button"
            className="button button--danger"
            disabled={busy !== null || !active}
            onClick={() => void run('stop')}
            data-testid="local-stop"
          >
            {busy === 'stop' ? 'Stopping…' : 'Stop'}
          </button>
          <button
            type="button"
            className="button"
            disabled={busy !== null}
            onClick={() => void run('restart')}
            data-testid="local-restart"
          >
            {busy === 'restart' ? 'Restarting…' : 'Restart'}
          </button>
        </div>
      </header>

      <ErrorBanner
        title="Broker problem:"
        message={status?.state === 'failed' ? status.lastError : null}
        testId="local-problem"
      />
      <ErrorBanner title="Action failed:" message={error?.message} testId="local-action-error" />

      <dl className="facts panel local-facts">
        <dt>socket.io port</dt>
        <dd data-testid="local-port">{status?.port || '—'}</dd>
        <dt>MQTT port</dt>
        <dd data-testid="local-mqtt-port">{mqttPortText(status)}</dd>
        {status?.mqttWsPort ? (
          <>
            <dt>MQTT WebSocket port</dt>
            <dd data-testid="local-mqtt-ws-port">{status.mqttWsPort}</dd>
          </>
        ) : null}
        <dt>Process</dt>
        <dd>{status?.pid ?? '—'}</dd>
        <dt>Data directory</dt>
        <dd data-testid="local-data-dir">
          <code>{status?.dataDir ?? '—'}</code>
        </dd>
        <dt>Restarts after crashes</dt>
        <dd>{status?.restarts ?? 0}</dd>
      </dl>

      <h3 className="section-title">Log</h3>
      <LogTail client={client} />

      <SettingsEditor client={client} />
    </main>
  );
}
