/**
 * Notices when the process that supervises this broker goes away, at any moment — before the
 * broker is built, while it starts listening, or long after its ready message — so a console
 * killed with `kill -9` never leaves an orphan holding the port and the SQLite lock (issue 8
 * item 14). Only for a supervised broker (one with an IPC channel: `process.send` exists); a
 * broker started from a shell keeps running as before.
 *
 * Three signs, whichever comes first: the IPC channel is already closed when we look
 * (`process.connected === false`; the 'disconnect' event may have fired while modules loaded),
 * the channel's 'disconnect' event, and the parent pid changing (re-parented to init or a
 * subreaper), polled every `pollMs` (default 500 ms) for hosts whose channel has no such event.
 */

export interface ParentWatchOptions {
  /** Poll period of the parent pid, in ms. Default 500. */
  pollMs?: number;
  /** The process to watch. Default `process`. */
  proc?: NodeJS.Process;
}

/** True when this process was started with an IPC channel by a supervisor. */
export function isSupervised(proc: NodeJS.Process = process): boolean {
  return typeof proc.send === 'function';
}

/**
 * Calls `onGone(reason)` once when the parent is gone (possibly synchronously, if it already
 * is). Returns a function that stops watching. Does nothing when not supervised.
 */
export function watchParent(
  onGone: (reason: string) => void,
  options: ParentWatchOptions = {},
): () => void {
  const proc = options.proc ?? process;
  if (!isSupervised(proc)) return () => undefined;
  let done = false;
  const parentPid = proc.ppid;
  const gone = (reason: string): void => {
    if (done) return;
    done = true;
    stop();
    onGone(reason);
  };
  const onDisconnect = (): void => gone('parent disconnected');
  proc.on('disconnect', onDisconnect);
  const timer = setInterval(() => {
    if (proc.ppid !== parentPid) gone(`parent ${parentPid} exited`);
  }, options.pollMs ?? 500);
  timer.unref();
  const stop = (): void => {
    clearInterval(timer);
    proc.off('disconnect', onDisconnect);
  };
  // An Electron utility process has no channel (`connected` is undefined), only a shimmed send.
  if (proc.connected === false) gone('parent disconnected before start');
  return () => {
    done = true;
    stop();
  };
}
