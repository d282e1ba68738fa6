/**
 * Start / Stop / Restart of the local broker, as the Overview and the Broker process page show
 * them. Stop and Restart ask first (they disconnect every client and stop the demo); Start does
 * not. A stopped broker offers Start, never Restart: it is not an outage to recover from.
 */
import { useState, type ReactNode } from 'react';
import type { LocalBrokerState } from '../../../../shared/console-api';
import { ConfirmPanel } from '../../components/confirm-panel';

export type LocalBrokerAction = 'start' | 'stop' | 'restart';

/** What Stop and Restart do to the broker's clients, in the words the confirmation shows. */
export const LIFECYCLE_CONSEQUENCES: Record<'stop' | 'restart', string> = {
  stop: 'Stop the local broker? It disconnects every client (producers, consumers, MQTT devices, live taps), stops the demo, and nothing can connect until you start it again. Durable messages stay in its store.',
  restart:
    'Restart the local broker? It disconnects every client (the demo’s too) while it restarts; they must reconnect. Durable messages stay in its store.',
};

const PROGRESS: Record<LocalBrokerAction, string> = {
  start: 'Starting…',
  stop: 'Stopping…',
  restart: 'Restarting…',
};
const LABEL: Record<LocalBrokerAction, string> = {
  start: 'Start',
  stop: 'Stop',
  restart: 'Restart',
};

/**
 * The pending confirmation of a Stop or Restart: `ask(action)` from a button, `panel` (render it
 * under the page header, where it does not squeeze the buttons) until it is answered.
 */
export function useLifecycleConfirm(
  onRun: (action: LocalBrokerAction) => void,
  testIdPrefix: string,
): { ask: (action: LocalBrokerAction) => void; panel: ReactNode } {
  const [asking, setAsking] = useState<'stop' | 'restart' | null>(null);
  const ask = (action: LocalBrokerAction): void => {
    if (action === 'start') onRun('start');
    else setAsking(action);
  };
  const panel = asking ? (
    <ConfirmPanel
      confirmLabel={asking === 'stop' ? 'Stop the broker' : 'Restart the broker'}
      onConfirm={() => {
        setAsking(null);
        onRun(asking);
      }}
      onCancel={() => setAsking(null)}
      testId={`${testIdPrefix}-confirm`}
    >
      {LIFECYCLE_CONSEQUENCES[asking]}
    </ConfirmPanel>
  ) : null;
  return { ask, panel };
}

export interface LocalBrokerButtonsProps {
  state: LocalBrokerState;
  /** The action in progress, else null. */
  busy: LocalBrokerAction | null;
  disabled?: boolean;
  /** Which buttons: `all` (Start, Stop, Restart) or `one` (Start when stopped, else Restart). */
  show: 'all' | 'one';
  /** Called on a click; Stop and Restart should go through `useLifecycleConfirm().ask`. */
  onClick: (action: LocalBrokerAction) => void;
  /** Prefix of the buttons' test ids (`<prefix>-start`, …). */
  testIdPrefix: string;
}

export function LocalBrokerButtons({
  state,
  busy,
  disabled = false,
  show,
  onClick,
  testIdPrefix,
}: LocalBrokerButtonsProps) {
  const active = state === 'running' || state === 'starting' || state === 'restarting';
  const actions: LocalBrokerAction[] =
    show === 'all' ? ['start', 'stop', 'restart'] : [state === 'stopped' ? 'start' : 'restart'];
  const enabled = (action: LocalBrokerAction): boolean => {
    if (disabled || busy !== null) return false;
    if (action === 'start') return !active;
    if (action === 'stop') return active;
    return state !== 'starting';
  };
  const tone = (action: LocalBrokerAction): string =>
    action === 'stop'
      ? ' button--danger'
      : action === 'start' && show === 'one'
        ? ' button--primary'
        : '';
  return (
    <>
      {actions.map((action) => (
        <button
          key={action}
          type="button"
          className={`button${tone(action)}`}
          disabled={!enabled(action)}
          onClick={() => onClick(action)}
          data-testid={`${testIdPrefix}-${action}`}
        >
          {busy === action ? PROGRESS[action] : LABEL[action]}
        </button>
      ))}
    </>
  );
}
