/**
 * One cluster node run the way an operator runs it: `broker/cli.ts` (`npm run broker`) as a
 * child process, with a data directory, a settings file holding only the public `cluster`
 * block (`{enabled, redis_url, node_id, prefix}`, broker/cluster/cluster-schema.ts) and a fixed
 * port, so that it can be SIGKILLed and started again as the same node (same `node_id`, data
 * directory and address). Storage is the CLI's default: SQLite in the data directory.
 *
 * Used by the catch-up scenario (`scenarios/cluster-catchup.ts`); the process side is
 * test/helpers/broker-process.ts (waits for `broker-ready`; the CLI exits when this process
 * goes away). Times in ms.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrokerProcess, type BrokerProcess } from '../../test/helpers/broker-process';
import { freePort } from '../../test/helpers/redis-server';

/** The cluster settings block every node of the scenario gets, plus its own id. */
export interface ClusterBlock {
  redis_url: string;
  prefix: string;
}

export class CliNode {
  private process: BrokerProcess | null = null;

  private constructor(
    readonly nodeId: string,
    readonly port: number,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Writes the node's settings file under `root` and picks its port (not started yet). */
  static async create(root: string, nodeId: string, cluster: ClusterBlock): Promise<CliNode> {
    const dataDir = join(root, nodeId);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const settingsFile = join(root, `${nodeId}.settings.json`);
    const settings = { cluster: { enabled: true, node_id: nodeId, ...cluster } };
    writeFileSync(settingsFile, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
    const port = await freePort();
    const args = ['--port', String(port), '--data-dir', dataDir, '--settings', settingsFile];
    // No `.env` of the working directory: the node runs on its flags and settings file only.
    return new CliNode(nodeId, port, args, { TYO_MQ_ENV_FILE: join(root, 'none.env') });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.process?.child.pid ?? -1;
  }

  /** Starts the node and waits for `broker-ready` (60 s at most on a busy machine). */
  async start(): Promise<void> {
    if (this.process) throw new Error(`${this.nodeId}: already running`);
    this.process = await startBrokerProcess(this.args, 60_000, this.env);
  }

  /** SIGKILL: no clean shutdown, nothing flushed; waits for the process to be gone. */
  async kill(): Promise<void> {
    const p = this.process;
    this.process = null;
    if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
    p.child.kill('SIGKILL');
    await p.exited;
  }

  /** SIGTERM (clean stop), SIGKILL after 5 s. */
  async stop(): Promise<void> {
    const p = this.process;
    this.process = null;
    await p?.stop();
  }

  /** What the running process wrote to stderr so far. */
  stderr(): string {
    return this.process?.stderr() ?? '';
  }
}
