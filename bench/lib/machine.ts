/**
 * What the benchmark ran on, and how busy the machine was while it measured.
 *
 * On a shared machine the numbers mean little without the second part: `LoadProbe` samples, over
 * one measured phase, the server process (CPU and event-loop utilisation), this client process,
 * and the whole machine, and reports the CPU used by everything else (`other_cpu_pct`), so a
 * run disturbed by a neighbour can be recognised.
 *
 * Units: CPU in percent of one core (a 2-core machine has 200 %), event-loop utilisation 0–1,
 * memory in MiB.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { serverLoad, type ServerHandle, type ServerSample } from '../servers/server-process';

export interface MachineInfo {
  cpus: number;
  cpu_model: string;
  total_mem_mib: number;
  platform: string;
  arch: string;
  node: string;
  socket_io: string;
  /** 1-, 5- and 15-minute load averages when the run started. */
  load_avg_start: number[];
  git: { commit: string | null; dirty: boolean | null };
}

/** Static facts about the machine and the code under test. */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  const socketIo = createRequire(import.meta.url)('socket.io/package.json') as { version: string };
  return {
    cpus: cpus.length,
    cpu_model: cpus[0]?.model.trim() ?? 'unknown',
    total_mem_mib: Math.round(os.totalmem() / 2 ** 20),
    platform: `${os.platform()} ${os.release()}`,
    arch: os.arch(),
    node: process.version,
    socket_io: socketIo.version,
    load_avg_start: os.loadavg().map((l) => Math.round(l * 100) / 100),
    git: gitState(),
  };
}

function gitState(): MachineInfo['git'] {
  const git = (...args: string[]) =>
    execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    return { commit: git('rev-parse', 'HEAD'), dirty: git('status', '--porcelain').length > 0 };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** Busy and total CPU time of the whole machine, ms, summed over cores. */
function machineCpuMs(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    busy += t.user + t.nice + t.sys + t.irq;
    total += t.user + t.nice + t.sys + t.irq + t.idle;
  }
  return { busy, total };
}

/** CPU picture of one measured phase. */
export interface PhaseLoad {
  /** Server process CPU, % of one core. */
  server_cpu_pct: number;
  /** Server process CPU time over the phase, ms. */
  server_cpu_ms: number;
  /** Server event-loop utilisation, 0–1 (near 1 with low CPU = starved of CPU). */
  server_elu: number;
  /** This process (every client socket), % of one core. */
  client_cpu_pct: number;
  /** Everything else on the machine, % of one core (noise from neighbours). */
  other_cpu_pct: number;
  /** Server resident memory at the end of the phase, MiB. */
  server_rss_mib: number;
  /** TCP bytes received by the server during the phase (client→server). */
  wire_in_bytes: number;
  /** TCP bytes sent by the server during the phase (server→client). */
  wire_out_bytes: number;
}

/**
 * Samples around one phase: `const probe = await LoadProbe.start(server); …; await
 * probe.stop()`. Also brackets the server's CPU profile when profiling is on.
 */
export class LoadProbe {
  private constructor(
    private readonly server: ServerHandle,
    private readonly serverStart: ServerSample,
    private readonly clientStart: NodeJS.CpuUsage,
    private readonly machineStart: { busy: number; total: number },
    private readonly at: number,
  ) {}

  /** Starts sampling (and the server's CPU profile, when profiling is on). */
  static async start(server: ServerHandle): Promise<LoadProbe> {
    await server.profile('start');
    const serverStart = await server.sample();
    return new LoadProbe(
      server,
      serverStart,
      process.cpuUsage(),
      machineCpuMs(),
      performance.now(),
    );
  }

  async stop(): Promise<PhaseLoad> {
    const wallMs = performance.now() - this.at;
    const client = process.cpuUsage(this.clientStart);
    const machine = machineCpuMs();
    const serverEnd = await this.server.sample();
    await this.server.profile('stop');
    const server = serverLoad(this.serverStart, serverEnd);
    const clientPct = ((client.user + client.system) / 1000 / wallMs) * 100;
    // os.cpus() ticks are coarse (10 ms); over a phase of a second or more that is ~1 %.
    const machinePct = ((machine.busy - this.machineStart.busy) / wallMs) * 100;
    return {
      server_cpu_pct: server.cpuPct,
      server_cpu_ms: (server.cpuPct / 100) * (serverEnd.at - this.serverStart.at),
      server_elu: server.elu,
      client_cpu_pct: clientPct,
      other_cpu_pct: Math.max(0, machinePct - server.cpuPct - clientPct),
      server_rss_mib: serverEnd.rssBytes / 2 ** 20,
      wire_in_bytes: serverEnd.wire.in - this.serverStart.wire.in,
      wire_out_bytes: serverEnd.wire.out - this.serverStart.wire.out,
    };
  }
}
