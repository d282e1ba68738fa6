/**
 * Broker process (the local broker's page; "Local broker" is the name of its connection): its
 * state with Start / Stop / Restart (Stop and Restart confirmed first), its socket.io and MQTT ports and data
 * directory, the live log tail, and the settings file editor.
 */
import { useState } from 'react';
import type { ErrorInfo } from '../../../../shared/error-catalogue';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { StatusBadge, type BadgeTone } from '../../components/status-badge';
import { useAppStore } from '../../store/app-store';
import '../../styles/tap.css';
import '../../styles/local-broker.css';
import { mqttPortText } from './local-ports';
import {
  LocalBrokerButtons,
  useLifecycleConfirm,
  type LocalBrokerAction,
} from './local-broker-controls';
import { LogTail } from './log-tail';
import { SettingsEditor } from './settings-editor';
import { Page } from '../../components/page';

const TONES: Record<string, BadgeTone> = {
  running: 'ok',
  starting: 'busy',
  restarting: 'busy',
  stopped: 'idle',
  failed: 'bad',
};

export function LocalBrokerView({ client }: { client: ConsoleClient }) {
  const status = useAppStore((s) => s.localBroker);
  const applyLocalBroker = useAppStore((s) => s.applyLocalBroker);
  const [busy, setBusy] = useState<LocalBrokerAction | null>(null);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const state = status?.state ?? 'stopped';
  // Console host gone: the last state is history, never shown as current (as on Overview).
  const stale = useAppStore((s) => s.connection === 'offline');

  const run = async (action: LocalBrokerAction): Promise<void> => {
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
  const confirm = useLifecycleConfirm((action) => void run(action), 'local');

  return (
    <Page
      testId="local-broker-view"
      title="Broker process"
      intro="The local broker this console runs on this machine: its process, log and settings."
      aside={
        <>
          <div className="page__actions local-actions">
            <StatusBadge
              label={stale ? `stale (was ${state})` : state}
              tone={stale ? 'idle' : (TONES[state] ?? 'idle')}
              testId="local-state"
            />
            <LocalBrokerButtons
              state={state}
              busy={busy}
              show="all"
              onClick={confirm.ask}
              testIdPrefix="local"
            />
          </div>
        </>
      }
    >
      {confirm.panel}

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
    </Page>
  );
}
