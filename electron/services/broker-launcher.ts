/**
 * How the supervisor starts a broker process, abstracted so the supervisor stays host-agnostic:
 * the web host and tests fork `broker/cli.ts` with Node (`createForkLauncher`), the Electron
 * main process forks a bundled entry with `utilityProcess` (electron/main/utility-process-launcher.ts).
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** How a broker process ended. `error` is set when it could not be spawned at all. */
export interface BrokerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

/** A running broker process, as the supervisor needs to see it. */
export interface BrokerChild {
  /** OS process id; undefined if spawning failed. */
  readonly pid: number | undefined;
  /** Piped stdout/stderr (pino JSON lines); null if the host does not pipe them. */
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  /** IPC messages from the child (`BrokerProcessMessage`, unvalidated). */
  onMessage(listener: (message: unknown) => void): void;
  /** Called exactly once, when the process is gone (or failed to spawn). */
  onExit(listener: (exit: BrokerExit) => void): void;
  /** Sends a signal; a no-op once the process has exited. */
  kill(signal: 'SIGTERM' | 'SIGKILL'): void;
}

/** What to launch: CLI arguments for `broker/cli.ts` and the environment. */
export interface BrokerLaunchRequest {
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** Starts one broker process. Must not throw for runtime failures: report them via `onExit`. */
export type BrokerLauncher = (request: BrokerLaunchRequest) => BrokerChild;

/** Default entry for development: the TypeScript CLI, run through tsx. */
export const DEFAULT_BROKER_ENTRY = fileURLToPath(new URL('../../broker/cli.ts', import.meta.url));

/** Options of `createForkLauncher`. */
export interface ForkLauncherOptions {
  /** Module to fork. Default: `broker/cli.ts` of this checkout. */
  entry?: string;
  /** Node flags for the child. Default `['--import', 'tsx']` (runs TypeScript directly). */
  execArgv?: string[];
  /** Executable. Default `process.execPath`. */
  execPath?: string;
}

/** The variable naming the broker module the web console forks (docs/console.md). */
export const BROKER_ENTRY_ENV = 'SWITCHBOARD_BROKER_ENTRY';

/**
 * The fork options `$SWITCHBOARD_BROKER_ENTRY` asks for: unset or empty, the defaults (this
 * checkout's `broker/cli.ts` through tsx); a `.ts` file, that file through tsx; anything else
 * (the built `dist/broker/switchboard-broker.mjs` of `npm run build:broker`) plain Node, which
 * starts in about 0.5 s instead of 1.3–2 s. The path is resolved against the working directory.
 */
export function forkLauncherOptionsFromEnv(env: NodeJS.ProcessEnv): ForkLauncherOptions {
  const entry = env[BROKER_ENTRY_ENV];
  if (!entry) return {};
  const resolved = path.resolve(entry);
  return { entry: resolved, execArgv: resolved.endsWith('.ts') ? ['--import', 'tsx'] : [] };
}

/**
 * A launcher using `child_process.fork`: an IPC channel for `process.send`, stdout/stderr piped.
 */
export function createForkLauncher(options: ForkLauncherOptions = {}): BrokerLauncher {
  const entry = options.entry ?? DEFAULT_BROKER_ENTRY;
  const execArgv = options.execArgv ?? ['--import', 'tsx'];
  return ({ args, env }) => {
    const child = fork(entry, args, {
      execArgv,
      execPath: options.execPath ?? process.execPath,
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // Its own process group: Ctrl-C in a terminal (SIGINT to the foreground group) reaches it
      // only through us, so the console can finish its own work on the broker (a running demo
      // removes its realm) before stopping it. A console killed outright still takes it along
      // (broker/parent-watch.ts).
      detached: true,
    });
    let exited = false;
    const exitListeners: ((exit: BrokerExit) => void)[] = [];
    const finish = (exit: BrokerExit): void => {
      if (exited) return;
      exited = true;
      for (const listener of exitListeners) listener(exit);
    };
    child.on('exit', (code, signal) => finish({ code, signal }));
    // 'error' without a pid means the spawn itself failed and no 'exit' will follow.
    child.on('error', (error) => {
      if (child.pid === undefined) finish({ code: null, signal: null, error });
    });
    return {
      get pid() {
        return child.pid;
      },
      stdout: child.stdout,
      stderr: child.stderr,
      onMessage: (listener) => child.on('message', listener),
      onExit: (listener) => exitListeners.push(listener),
      kill: (signal) => {
        if (!exited && child.exitCode === null && child.signalCode === null) child.kill(signal);
      },
    };
  };
}
