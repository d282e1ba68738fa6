/**
 * Runs the broker CLI (test/helpers/broker-cli.ts: the run's bundle, else `broker/cli.ts`) as a real child process (as the console's supervisor does) and waits
 * for its `broker-ready` message. The caller kills or stops it; `stop()` is idempotent.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { BrokerProcessMessage } from '../../shared/broker-process';
import { BROKER_CLI_SOURCE, brokerCliCommand } from './broker-cli';

export interface BrokerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** SIGTERM and wait for exit (SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** Resolves with the exit code (null after a signal). */
  exited: Promise<number | null>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Everything it wrote to stdout (its log lines) so far; empty unless `captureStdout`. */
  stdout(): string;
}

export interface BrokerProcessOptions {
  /** Reads the process's stdout (its JSON log lines) into `stdout()`; default ignored. */
  captureStdout?: boolean;
  /** Runs broker/cli.ts through tsx even when the run built a bundle (the quick start's path). */
  source?: boolean;
}

function forkCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: BrokerProcessOptions = {},
): ChildProcess {
  const { modulePath, execArgv } = options.source
    ? { modulePath: BROKER_CLI_SOURCE, execArgv: ['--import', 'tsx'] }
    : brokerCliCommand();
  return fork(modulePath, ['--host', '127.0.0.1', ...args], {
    execArgv,
    stdio: ['ignore', options.captureStdout ? 'pipe' : 'ignore', 'pipe', 'ipc'],
    env: { ...process.env, SWB_LOG_LEVEL: 'warn', ...env },
  });
}

/** Runs the CLI until it exits on its own (a start-up failure); resolves with code and stderr. */
export async function runBrokerToExit(
  args: string[],
): Promise<{ code: number | null; stderr: string }> {
  const child = forkCli(args);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

export async function startBrokerProcess(
  args: string[],
  timeoutMs = 20_000,
  env: NodeJS.ProcessEnv = {},
  options: BrokerProcessOptions = {},
): Promise<BrokerProcess> {
  const child = forkCli(args, env, options);
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`broker not ready in ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    );
    child.on('message', (m: BrokerProcessMessage) => {
      if (m.type === 'broker-ready') {
        clearTimeout(timer);
        resolve(m.port);
      } else if (m.type === 'broker-fatal') {
        clearTimeout(timer);
        reject(new Error(`${m.code}: ${m.message}`));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`broker exited with ${code}: ${stderr}`));
    });
  });
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    exited,
    stderr: () => stderr,
    stdout: () => stdout,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
