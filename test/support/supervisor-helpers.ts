/** Helpers to observe a BrokerSupervisor in tests. */
import type { BrokerSupervisor } from '../../electron/services/broker-supervisor';
import type { LocalBrokerStatus } from '../../shared/console-api';

/** Resolves with the first status (current or future) matching `predicate`. */
export function waitForStatus(
  supervisor: BrokerSupervisor,
  predicate: (status: LocalBrokerStatus) => boolean,
  timeoutMs = 20_000,
): Promise<LocalBrokerStatus> {
  return new Promise((resolve, reject) => {
    if (predicate(supervisor.status())) return resolve(supervisor.status());
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`status never matched; last: ${JSON.stringify(supervisor.status())}`));
    }, timeoutMs);
    const stop = supervisor.onStatus((status) => {
      if (!predicate(status)) return;
      clearTimeout(timer);
      stop();
      resolve(status);
    });
  });
}

/** True while a process with `pid` exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
