/**
 * One connection's messages per second in / out in its Clients card (issue 27), as the host
 * measured them between listings (client-rates.ts). Nothing for a row without a connection to
 * measure (offline, or a broker without per-connection counters); "measuring" until the host
 * has two readings.
 */
import { formatRate } from '../../format';
import type { RowRate } from './clients-model';

export function ClientRateLine({ rate }: { rate: RowRate | null }) {
  if (!rate) return null;
  const measuring = rate.in === null || rate.out === null;
  return (
    <p
      className="muted small ops-client__rate"
      title="Application messages per second from / to this connection"
      data-testid="client-rate"
      data-in={rate.in ?? ''}
      data-out={rate.out ?? ''}
    >
      Messages {formatRate(rate.in)} in · {formatRate(rate.out)} out
      {measuring && ' (measuring…)'}
    </p>
  );
}
