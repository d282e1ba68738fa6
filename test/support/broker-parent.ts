/**
 * A stand-in for the console: forks `broker/cli.ts` the way the supervisor does (IPC channel,
 * stdout/stderr piped), prints `pid <child pid>` on its own stdout, then misbehaves as asked:
 *
 *   node --import tsx broker-parent.ts <mode> -- <broker args…>
 *     die-at-once    SIGKILLs itself right after the fork (before the broker's ready message)
 *     die-on-ready   SIGKILLs itself once the broker reports `broker-ready`
 *     close-logs     on ready, stops reading the broker's stdout/stderr (closes the pipes) and
 *                    prints `closed`; it stays alive until killed
 */
import { fork } from 'node:child_process';
import { brokerCliCommand } from '../helpers/broker-cli';

const { modulePath, execArgv } = brokerCliCommand();
const [mode, separator, ...args] = process.argv.slice(2);
if (separator !== '--') throw new Error('usage: broker-parent.ts <mode> -- <broker args>');

const child = fork(modulePath, args, {
  execArgv,
  stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
});
process.stdout.write(`pid ${child.pid}\n`);
if (mode === 'die-at-once') process.kill(process.pid, 'SIGKILL');
child.on('message', (message: { type?: string; port?: number }) => {
  if (message.type !== 'broker-ready') return;
  process.stdout.write(`ready ${message.port}\n`);
  if (mode === 'die-on-ready') process.kill(process.pid, 'SIGKILL');
  if (mode === 'close-logs') {
    child.stdout?.destroy();
    child.stderr?.destroy();
    process.stdout.write('closed\n');
  }
});
