/**
 * Desktop notifications (Notification API) for new authorization requests that arrive while the
 * console's window is in the background. Permission is asked only from a user action
 * (`askNotificationPermission`, the Requests view's button), as browsers require.
 */
import { useEffect } from 'react';
import type { ConsoleClient } from '../../api/console-client';

/** `granted`, `denied`, `default`, or `unsupported` (no Notification API, e.g. some webviews). */
export function notificationPermission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** Asks for permission; call from a click handler. */
export async function askNotificationPermission(): Promise<NotificationPermission | 'unsupported'> {
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.requestPermission();
}

const inBackground = (): boolean => document.visibilityState === 'hidden' || !document.hasFocus();

/** Notifies once per new pending request id while the window is in the background. */
export function useRequestNotifications(client: ConsoleClient | null): void {
  useEffect(() => {
    if (!client) return undefined;
    const shown = new Set<string>();
    return client.api.on('pendingRequest', ({ request }) => {
      if (!request || shown.has(request.requestId)) return;
      shown.add(request.requestId);
      if (notificationPermission() !== 'granted' || !inBackground()) return;
      const note = new Notification('Authorization request', {
        body: `${request.clientName || request.clientId} asks for ${request.role} in ${request.realm}`,
        tag: request.requestId,
      });
      note.onclick = () => window.focus();
    });
  }, [client]);
}
