/**
 * Visible rejections (issue 11): a connection closed because of bad input is logged with its
 * socket id and address and counted in `tyo_mq_rejected_inputs_total{reason}`, so abuse and a
 * flaky network can be told apart:
 * - `oversize_frame`: a frame over `max_http_buffer_size` (ws closes with 1009 "Max payload size
 *   exceeded"; the polling transport answers 413 "payload too large"). Only that connection is
 *   closed. The exact size is not known to the broker (the transport stops reading), so the log
 *   gives the limit it exceeded.
 * - `malformed`: a socket.io packet that does not decode (socket.io reports it to every socket
 *   of the connection as `error`, then closes the connection).
 */
import type { Logger } from '../logging/logger';
import type { BrokerSocket } from '../transport/socket-types';
import { RejectReason, type LimitMetrics } from './limit-metrics';

const OVERSIZE = /max payload size exceeded|payload too large|too many chunks/i;

export function watchRejections(
  socket: BrokerSocket,
  address: string,
  metrics: LimitMetrics,
  logger: Logger,
  maxFrameBytes: number,
): void {
  socket.conn.once('close', (reason: string, description?: unknown) => {
    if (reason !== 'transport error') return;
    const text = String((description as Error | undefined)?.message ?? description);
    if (!OVERSIZE.test(text)) return;
    metrics.rejectedInput(RejectReason.OVERSIZE_FRAME);
    logger.warn(
      {
        socket: socket.id,
        address,
        transport: socket.conn.transport?.name,
        size: `> ${maxFrameBytes} bytes (max_http_buffer_size)`,
      },
      'oversize frame: connection closed',
    );
  });
  socket.on('error', (err: unknown) => {
    // A client may also send an event named `error` (socket.io's parser allows it); its
    // arguments are JSON, never an Error, and it is answered as an unknown event instead.
    if (!(err instanceof Error)) return;
    metrics.rejectedInput(RejectReason.MALFORMED);
    logger.warn(
      { socket: socket.id, address, err: err.message },
      'malformed packet: connection closed',
    );
  });
}
