/**
 * The alarms of the selected broker, for the whole app (issue 27, "Broker resources and
 * alarms"): `getResources` every 10 s, the count for the top bar's alarm chip, and one desktop
 * notification (Notification API) per newly raised alarm while the window is in the
 * background. Permission is asked only from a click (the Resources view's button), as
 * browsers require; `askNotificationPermission` is shared with the Requests view.
 */
import { useCallback, useEffect, useMemo, useRef } from 'react';
import type { Alarm } from '../../../../shared/broker-resources';
import { errorInfo } from '../../../../shared/error-catalogue';
import type { ConsoleClient } from '../../api/console-client';
import { usePolled } from '../../hooks/use-polled';
import { selectedBrokerState, useAppStore } from '../../store/app-store';
import { notificationPermission } from '../requests/request-notifications';

/** How often the top bar asks the selected broker for its alarms, ms. */
export const ALARM_POLL_MS = 10_000;

/** Connection states in which the broker answers commands (the top bar's green states). */
const ANSWERING = new Set(['online', 'running']);

const inBackground = (): boolean => document.visibilityState === 'hidden' || !document.hasFocus();

/** The alarms raised on the selected broker now (empty when it does not offer `resources`). */
export function useAlarmWatch(client: ConsoleClient | null): Alarm[] {
  const connectionId = useAppStore((s) => s.selectedConnectionId);
  // Asked only while the broker can answer: a stopped or restarting local broker (demo start,
  // Broker process view) or an unreachable remote one would only fill the log with 503s.
  const reachable = useAppStore(
    (s) => s.connection === 'online' && ANSWERING.has(selectedBrokerState(s)),
  );
  const call = useCallback(
    () =>
      client && reachable
        ? client.api.getResources({ connectionId })
        : Promise.resolve({ ok: false as const, error: errorInfo('SWB_ERR_NOT_FOUND') }),
    [client, connectionId, reachable],
  );
  const { value } = usePolled(call, ALARM_POLL_MS);
  const alarms = useMemo(() => value?.resources?.alarms ?? [], [value]);
  const notified = useRef(new Map<string, number>());
  useEffect(() => {
    const raisedNow = new Map(alarms.map((a) => [`${connectionId}:${a.id}`, a.since]));
    for (const [key, since] of raisedNow) {
      if (notified.current.get(key) === since) continue;
      notified.current.set(key, since);
      const alarm = alarms.find((a) => `${connectionId}:${a.id}` === key)!;
      if (notificationPermission() !== 'granted' || !inBackground()) continue;
      const note = new Notification(`Switchboard alarm (${alarm.level})`, {
        body: alarm.message,
        tag: key,
      });
      note.onclick = () => window.focus();
    }
  }, [alarms, connectionId]);
  return alarms;
}
