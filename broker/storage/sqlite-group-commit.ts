/**
 * The SQLite store's group commit (ARCHITECTURE §1, "commits batched and off the event loop"):
 * writes queue here and go to the storage worker as one transaction — at the end of the current
 * event-loop turn (`commitDelayMs` 0) or after `commitDelayMs`, or as soon as `maxBatchRows`
 * are waiting — and while that commit is in flight the next batch keeps growing, so under load
 * every fsync covers many writes. A write's promise settles only after its commit; a failed
 * commit rolls back and rejects every write of its batch.
 */
import { pushOp, type OpArgs, type OpBatch, type OpName, type OpResult } from './sqlite-ops';
import type { SqliteWorkerClient } from './sqlite-worker-client';

/** The writes waiting for the next group commit: their operations and how to settle each. */
interface Batch {
  ops: OpBatch;
  resolves: Array<(v: unknown) => void>;
  rejects: Array<(e: unknown) => void>;
  /** Per write, the value to resolve with instead of the operation's result (an insert's id). */
  values: unknown[];
}

const emptyBatch = (): Batch => ({ ops: [], resolves: [], rejects: [], values: [] });

export interface GroupCommitOptions {
  /** Most writes committed in one transaction. */
  maxBatchRows: number;
  /** Extra wait (ms) before a commit to gather more writes; 0 = end of the turn. */
  commitDelayMs: number;
  /** Told about a failed commit before its writes are rejected: the error and its operations. */
  onFailure(err: unknown, ops: OpBatch): void;
}

export class GroupCommit {
  private batch: Batch = emptyBatch();
  private scheduled: NodeJS.Immediate | NodeJS.Timeout | null = null;
  /** Write batches sent to the worker and not yet committed. */
  private committing = 0;
  /** Told each committed batch's round trip in ms (one call per batch, not per row). */
  onCommitted: ((ms: number) => void) | null = null;

  constructor(
    private readonly worker: SqliteWorkerClient,
    private readonly options: GroupCommitOptions,
  ) {}

  /** Queues one write; resolves with `value`, or its result when `value` is undefined. */
  queue<K extends OpName, V = OpResult<K>>(
    name: K,
    args: OpArgs<K>,
    value: V | undefined,
  ): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      const batch = this.batch;
      pushOp(batch.ops, name, args);
      batch.resolves.push(resolve as (v: unknown) => void);
      batch.rejects.push(reject);
      batch.values.push(value);
      if (batch.resolves.length >= this.options.maxBatchRows) this.flush();
      else if (this.committing === 0) this.schedule();
      // else: the commit in flight schedules this batch when it ends.
    });
  }

  /** Sends every queued write to the worker as one transaction; settles them on its reply. */
  flush(): void {
    if (this.scheduled !== null) {
      clearTimeout(this.scheduled as NodeJS.Timeout);
      clearImmediate(this.scheduled as NodeJS.Immediate);
      this.scheduled = null;
    }
    const writes = this.batch;
    if (writes.resolves.length === 0) return;
    this.batch = emptyBatch();
    this.committing++;
    const started = performance.now();
    const done = () => {
      this.committing--;
      if (this.committing === 0 && this.batch.resolves.length > 0) this.schedule();
    };
    this.worker.request(writes.ops, true).then(
      (results) => {
        this.onCommitted?.(performance.now() - started);
        const { resolves, values } = writes;
        for (let i = 0; i < resolves.length; i++) {
          resolves[i]!(values[i] === undefined ? results[i] : values[i]);
        }
        done();
      },
      (err: unknown) => {
        this.options.onFailure(err, writes.ops);
        for (const reject of writes.rejects) reject(err);
        done();
      },
    );
  }

  private schedule(): void {
    if (this.scheduled !== null) return;
    const delay = this.options.commitDelayMs;
    this.scheduled =
      delay > 0 ? setTimeout(() => this.flush(), delay) : setImmediate(() => this.flush());
  }
}
