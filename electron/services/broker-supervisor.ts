/**
 * BrokerSupervisor: runs the local broker as a child process, waits for it to report
 * `broker-ready`, restarts it after crashes with exponential backoff, and stops it cleanly.
 *
 * Source: ARCHITECTURE §1 (the broker runs in its own supervised process) and the CLI contract
 * in `shared/broker-process.ts`. Host-agnostic: the process is started by an injected
 * `BrokerLauncher` (Node `fork` by default, Electron `utilityProcess` in the desktop app).
 */
import { mkdirSync } from 'node:fs';
import { BrokerExitCode, type BrokerFatalMessage } from '../../shared/broker-process';
import type { LocalBrokerState, LocalBrokerStatus } from '../../shared/console-api';
import { SwitchboardError } from '../../shared/error-catalogue';
import { PortInUseError } from '../../shared/port-in-use-error';
import {
  createForkLauncher,
  type BrokerChild,
  type BrokerExit,
  type BrokerLauncher,
} from './broker-launcher';
import { readCappedLines } from './capped-lines';
import { RingBuffer } from './ring-buffer';
import {
  BrokerMessageSchema,
  DEFAULT_BACKOFF,
  MAX_LOG_LINE_BYTES,
  backoffDelay,
  type BackoffOptions,
  type BrokerLogLine,
  type BrokerSupervisorOptions,
} from './supervisor-options';

interface Waiter {
  resolve: (status: LocalBrokerStatus) => void;
  reject: (error: SwitchboardError) => void;
}

export class BrokerSupervisor {
  private readonly launcher: BrokerLauncher;
  private readonly backoff: BackoffOptions;
  private readonly logBuffer: RingBuffer<BrokerLogLine>;
  private readonly statusListeners = new Set<(status: LocalBrokerStatus) => void>();
  private readonly logListeners = new Set<(line: BrokerLogLine) => void>();
  private current: LocalBrokerStatus;
  private boundHost: string;
  /** `--mqtt-port` for the next launch: the option, then the port the broker bound. */
  private mqttPortArg: number | undefined;
  private child: BrokerChild | null = null;
  /** Incremented per launch so events of an old child are ignored. */
  private generation = 0;
  private wantRunning = false;
  private attempt = 0;
  /** Exits since the last ready message (or since `start()`). */
  private startFailures = 0;
  private fatal: BrokerFatalMessage | null = null;
  private timeoutError: string | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private readyTimer: NodeJS.Timeout | null = null;
  private stableTimer: NodeJS.Timeout | null = null;
  private waiters: Waiter[] = [];
  private stopping: Promise<void> | null = null;

  constructor(private readonly options: BrokerSupervisorOptions) {
    this.launcher = options.launcher ?? createForkLauncher();
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.logBuffer = new RingBuffer(options.logCapacity ?? 500);
    this.boundHost = options.host ?? '127.0.0.1';
    this.mqttPortArg = options.mqttPort;
    this.current = {
      state: 'stopped',
      port: options.port,
      pid: null,
      restarts: 0,
      startedAt: null,
      lastError: null,
      dataDir: options.dataDir,
      mqttPort: null,
      mqttWsPort: null,
    };
  }

  /** A snapshot of the current status. */
  status(): LocalBrokerStatus {
    return { ...this.current };
  }

  /** Where to reach the broker while it runs (wildcard binds mapped to loopback), else null. */
  endpoint(): { host: string; port: number } | null {
    if (this.current.state !== 'running') return null;
    const wildcard =
      this.boundHost === '0.0.0.0' || this.boundHost === '::' || this.boundHost === '';
    return { host: wildcard ? '127.0.0.1' : this.boundHost, port: this.current.port };
  }

  /** The settings file passed to the broker as `--settings`, if any. */
  get settingsFile(): string | undefined {
    return this.options.settingsFile;
  }

  /** The last `logCapacity` lines of broker output, oldest first. */
  logs(): BrokerLogLine[] {
    return this.logBuffer.toArray();
  }

  /** Subscribes to status changes; returns the unsubscribe function. */
  onStatus(listener: (status: LocalBrokerStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Subscribes to broker output lines; returns the unsubscribe function. */
  onLog(listener: (line: BrokerLogLine) => void): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  /**
   * Starts the broker (if not already started) and resolves once it is `running`. Crashes while
   * starting are retried with backoff (up to `maxStartFailures`). Rejects with a
   * `SwitchboardError` when it ends `failed` — `SWB_ERR_PORT_IN_USE`, `SWB_ERR_VALIDATION` (bad
   * settings, or an address that cannot be used: EADDRNOTAVAIL, EACCES…; never retried),
   * `SWB_ERR_BROKER_NOT_RUNNING` (`maxStartFailures` reached) — or `stop()` is called first
   * (`SWB_ERR_BROKER_NOT_RUNNING`).
   */
  async start(): Promise<LocalBrokerStatus> {
    if (this.stopping) await this.stopping;
    if (this.current.state === 'running') return this.status();
    const running = new Promise<LocalBrokerStatus>((resolve, reject) =>
      this.waiters.push({ resolve, reject }),
    );
    if (!this.wantRunning || (!this.child && !this.restartTimer)) {
      this.wantRunning = true;
      this.attempt = 0;
      this.startFailures = 0;
      this.launch();
    }
    return running;
  }

  /** Stops the broker: SIGTERM, then SIGKILL after `stopTimeoutMs`. Cancels pending restarts. */
  stop(): Promise<void> {
    this.wantRunning = false;
    this.clearTimer('restartTimer');
    if (this.stopping) return this.stopping;
    const child = this.child;
    if (!child) {
      if (this.current.state !== 'failed') this.update('stopped', {});
      this.settleWaiters();
      return Promise.resolve();
    }
    this.stopping = new Promise<void>((resolve) => {
      const killTimer = setTimeout(
        () => child.kill('SIGKILL'),
        this.options.stopTimeoutMs ?? 5_000,
      );
      child.onExit(() => {
        clearTimeout(killTimer);
        this.stopping = null;
        resolve();
      });
      child.kill('SIGTERM');
    });
    return this.stopping;
  }

  /** Stops then starts the broker; resolves once it runs again. Not counted in `restarts`. */
  async restart(): Promise<LocalBrokerStatus> {
    await this.stop();
    return this.start();
  }

  private launch(): void {
    this.restartTimer = null;
    this.generation += 1;
    const generation = this.generation;
    this.fatal = null;
    this.timeoutError = null;
    this.update('starting', { pid: null, startedAt: null });
    const { port, dataDir } = { port: this.current.port, dataDir: this.options.dataDir };
    try {
      // Owner only; the broker it starts also tightens an existing one (and logs it).
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      this.fail(
        'SWB_ERR_VALIDATION',
        `Cannot create data directory ${dataDir}: ${(error as Error).message}`,
      );
      return;
    }
    const args = ['--port', String(port), '--data-dir', dataDir, '--host', this.boundHost];
    if (this.options.settingsFile) args.push('--settings', this.options.settingsFile);
    if (this.mqttPortArg !== undefined) args.push('--mqtt-port', String(this.mqttPortArg));
    args.push(...(this.options.extraArgs ?? []));
    const child = this.launcher({ args, env: this.options.env ?? process.env });
    this.child = child;
    this.update('starting', { pid: child.pid ?? null });
    this.pipeLines(child.stdout, 'stdout');
    this.pipeLines(child.stderr, 'stderr');
    child.onMessage((message) => {
      if (generation === this.generation) this.handleMessage(message);
    });
    child.onExit((exit) => {
      if (generation === this.generation) this.handleExit(exit);
    });
    const readyTimeoutMs = this.options.readyTimeoutMs ?? 30_000;
    this.readyTimer = setTimeout(() => {
      this.timeoutError = `Broker did not report ready within ${readyTimeoutMs} ms`;
      child.kill('SIGKILL');
    }, readyTimeoutMs);
  }

  private handleMessage(raw: unknown): void {
    const parsed = BrokerMessageSchema.safeParse(raw);
    if (!parsed.success) return; // Not ours to interpret; the broker may add message types later.
    const message = parsed.data;
    if (message.type === 'broker-fatal') {
      this.fatal = message;
      return;
    }
    this.clearTimer('readyTimer');
    this.startFailures = 0;
    this.boundHost = message.host;
    const mqttPort = message.mqttPort ?? null;
    // Pin a port we chose (`--mqtt-port 0`) for restarts; the settings' own stay theirs.
    if (this.mqttPortArg !== undefined && mqttPort !== null) this.mqttPortArg = mqttPort;
    this.update('running', {
      port: message.port,
      mqttPort,
      mqttWsPort: message.mqttWsPort ?? null,
      pid: message.pid,
      startedAt: Date.now(),
      lastError: null,
    });
    this.stableTimer = setTimeout(() => {
      this.attempt = 0;
    }, this.backoff.stableMs);
    this.stableTimer.unref();
    for (const waiter of this.waiters.splice(0)) waiter.resolve(this.status());
  }

  private handleExit(exit: BrokerExit): void {
    this.clearTimer('readyTimer');
    this.clearTimer('stableTimer');
    this.child = null;
    if (!this.wantRunning) {
      if (this.current.state !== 'failed') this.update('stopped', { pid: null, startedAt: null });
      this.settleWaiters();
      return;
    }
    const fatalCode = this.fatal?.code;
    if (exit.code === BrokerExitCode.PORT_IN_USE || fatalCode === 'SWB_ERR_PORT_IN_USE') {
      this.failPortInUse();
    } else if (exit.code === BrokerExitCode.CONFIG || fatalCode === 'SWB_ERR_VALIDATION') {
      this.fail(
        'SWB_ERR_VALIDATION',
        this.fatal?.message ?? 'Broker configuration is invalid (exit code 2)',
      );
    } else if (++this.startFailures >= (this.options.maxStartFailures ?? Infinity)) {
      this.fail(
        'SWB_ERR_BROKER_NOT_RUNNING',
        `${this.describeCrash(exit)} (gave up after ${this.startFailures} attempts to start it)`,
      );
    } else {
      const delay = backoffDelay(this.attempt, this.backoff);
      this.attempt += 1;
      this.update('restarting', {
        pid: null,
        startedAt: null,
        restarts: this.current.restarts + 1,
        lastError: this.describeCrash(exit),
      });
      this.restartTimer = setTimeout(() => this.launch(), delay);
    }
  }

  private describeCrash(exit: BrokerExit): string {
    if (this.timeoutError) return this.timeoutError;
    if (exit.error) return `Broker could not be started: ${exit.error.message}`;
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    return this.fatal ? `Broker ${how}: ${this.fatal.message}` : `Broker ${how}`;
  }

  /** A taken port, named by the listener the broker reported (socket.io when it did not say),
   * rejected as a `PortInUseError` so hosts can name their own flag for it. */
  private failPortInUse(): void {
    const listener = this.fatal?.listener ?? 'socketio';
    const port = this.fatal?.port ?? this.current.port;
    const what =
      listener === 'mqtt' ? 'MQTT port' : listener === 'mqtt-ws' ? 'MQTT WebSocket port' : 'Port';
    const message = `${what} ${port} is already in use`;
    this.fail('SWB_ERR_PORT_IN_USE', message, new PortInUseError(listener, port, message));
  }

  /** Terminal failure: restarting would fail the same way. */
  private fail(
    code: 'SWB_ERR_PORT_IN_USE' | 'SWB_ERR_VALIDATION' | 'SWB_ERR_BROKER_NOT_RUNNING',
    message: string,
    error: SwitchboardError = new SwitchboardError(code, message),
  ): void {
    this.wantRunning = false;
    this.update('failed', { pid: null, startedAt: null, lastError: message });
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }

  private settleWaiters(): void {
    for (const waiter of this.waiters.splice(0)) {
      waiter.reject(
        new SwitchboardError('SWB_ERR_BROKER_NOT_RUNNING', 'The local broker was stopped'),
      );
    }
  }

  private update(state: LocalBrokerState, patch: Partial<LocalBrokerStatus>): void {
    this.current = { ...this.current, ...patch, state };
    const snapshot = this.status();
    for (const listener of this.statusListeners) listener(snapshot);
  }

  private pipeLines(stream: NodeJS.ReadableStream | null, name: BrokerLogLine['stream']): void {
    if (!stream) return;
    readCappedLines(stream, {
      maxBytes: MAX_LOG_LINE_BYTES,
      onLine: (line) => {
        const entry: BrokerLogLine = { at: Date.now(), stream: name, line };
        this.logBuffer.push(entry);
        for (const listener of this.logListeners) listener(entry);
      },
    });
  }

  private clearTimer(name: 'restartTimer' | 'readyTimer' | 'stableTimer'): void {
    const timer = this[name];
    if (timer) clearTimeout(timer);
    this[name] = null;
  }
}
