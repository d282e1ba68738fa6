/**
 * BrokerLauncher for the desktop app: runs the bundled broker in an Electron `utilityProcess`
 * (a Node child managed by Chromium's process model) instead of `child_process.fork`.
 *
 * The broker CLI talks to its supervisor with `process.send`; a utility process has
 * `process.parentPort` instead, which `broker-utility-entry.ts` bridges. A utility process can
 * only be sent SIGTERM (`kill()`), so SIGKILL goes through `process.kill(pid)`.
 */
import { utilityProcess } from 'electron';
import type { BrokerExit, BrokerLauncher } from '../services/broker-launcher';

export interface UtilityProcessLauncherOptions {
  /** Absolute path of the bundled `broker-host.mjs`. */
  entry: string;
}

export function createUtilityProcessLauncher({
  entry,
}: UtilityProcessLauncherOptions): BrokerLauncher {
  return ({ args, env }) => {
    const child = utilityProcess.fork(entry, args, {
      stdio: 'pipe',
      env: env as Record<string, string>,
      serviceName: 'Switchboard broker',
    });
    let exited = false;
    let lastPid: number | undefined;
    const exitListeners: ((exit: BrokerExit) => void)[] = [];
    child.on('spawn', () => {
      lastPid = child.pid;
    });
    child.on('exit', (code) => {
      exited = true;
      for (const listener of exitListeners) listener({ code, signal: null });
    });
    return {
      get pid() {
        return child.pid ?? lastPid;
      },
      stdout: child.stdout,
      stderr: child.stderr,
      onMessage: (listener) => child.on('message', listener),
      onExit: (listener) => exitListeners.push(listener),
      kill: (signal) => {
        if (exited) return;
        if (signal === 'SIGTERM') {
          child.kill();
          return;
        }
        const pid = child.pid ?? lastPid;
        if (pid !== undefined) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Already gone: the exit event follows.
          }
        }
      },
    };
  };
}
