/**
 * How a broker says it does not know a management command: a plain tyo-mq broker or an older
 * Switchboard answers an extension command with `400 unknown management command`, which the
 * manager client raises as `SWB_ERR_VALIDATION` (`spec/protocol-admin.md` §8). The console's
 * services turn it into a "this broker does not offer …" state instead of an error.
 */
import { SwitchboardError } from '../../shared/error-catalogue';

/** Whether `error` is a broker's refusal of a command it does not know. */
export function isUnknownCommand(error: unknown): boolean {
  return (
    error instanceof SwitchboardError &&
    error.code === 'SWB_ERR_VALIDATION' &&
    /unknown management command/i.test(error.message)
  );
}
