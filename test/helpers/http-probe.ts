/**
 * Raw HTTP probes of a broker's port for the request-policy tests (issue 19): a request with
 * any headers (Host included, which fetch cannot set), a WebSocket handshake's status, and the
 * `tyo_mq_rejected_inputs_total` counter read from `/api/metrics`.
 */
import { request } from 'node:http';
import WebSocket from 'ws';
import { HttpPath } from '../../shared/http-api';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A plain HTTP request with the given headers (Host included, which fetch cannot set). */
export function send(
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        headers: { connection: 'close', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/** Status of a WebSocket handshake to `url` with the given headers (101 = accepted). */
export function upgrade(
  url: string,
  headers: Record<string, string>,
  protocol?: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocol ? [protocol] : [], { headers });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      ws.terminate();
      resolve(res.statusCode ?? 0);
    });
    ws.once('error', reject);
  });
}

/** `tyo_mq_rejected_inputs_total{reason}` as the broker's /api/metrics reports it. */
export async function rejectedInputs(port: number, reason: string): Promise<number> {
  const { body } = await send(port, HttpPath.METRICS, {});
  const m = new RegExp(`^tyo_mq_rejected_inputs_total\\{reason="${reason}"\\} (\\d+)`, 'm').exec(
    body,
  );
  return m ? Number(m[1]) : 0;
}
