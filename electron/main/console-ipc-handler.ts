/**
 * The ConsoleApi IPC handler as a plain function (`ipcMain.handle(ConsoleChannel.INVOKE, …)`
 * installs it in console-ipc.ts): a sender that is not the main frame of our own page gets
 * `SWB_ERR_FORBIDDEN_ORIGIN` and the service is not called; everything else goes through the
 * same validation, confirmation tokens and Result mapping as the web host (console-dispatch.ts).
 * Pure: tested with fake IPC events.
 */
import type { ConsoleService, Result } from '../../shared/console-api';
import { errorInfo } from '../../shared/error-catalogue';
import { ConfirmationGate } from '../services/confirmation-gate';
import { dispatchConsoleCall, type InternalErrorSink } from '../services/console-dispatch';
import { isTrustedSender, type IpcSenderEvent } from './window-policy';

export function consoleInvokeHandler(
  service: ConsoleService,
  onInternal?: InternalErrorSink,
  /** Confirmation tokens of dangerous calls; console-ipc.ts passes one that asks with a native
   * dialog. Default: a gate that mints on request. */
  confirmations: ConfirmationGate = new ConfirmationGate(),
): (event: IpcSenderEvent, method: unknown, input: unknown) => Promise<Result<unknown>> {
  return async (event, method, input) => {
    if (!isTrustedSender(event)) {
      return {
        ok: false,
        error: errorInfo('SWB_ERR_FORBIDDEN_ORIGIN', 'IPC sender is not the Switchboard app'),
      };
    }
    return dispatchConsoleCall(service, method, input, onInternal, confirmations);
  };
}
