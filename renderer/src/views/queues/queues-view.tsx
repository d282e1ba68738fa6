/**
 * Queues (issue 27): every durable queue of the selected broker, RabbitMQ-management style —
 * realm, subscription key, consumer (online or not), ready and in-flight copies, the age of the
 * oldest ready one. Read with `listQueues` every 2 s; filtered by realm, consumer and key
 * (substrings) and sorted by a column header (queues-model.ts). Selecting a row opens its
 * detail with Peek and Purge (queue-detail.tsx). A broker without `list_queues` gets one line
 * saying so instead of a table.
 */
import { useCallback, useMemo, useState } from 'react';
import type { ConsoleClient } from '../../api/console-client';
import { ConnectionProblem } from '../../components/connection-problem';
import { Page } from '../../components/page';
import { formatCount, formatCountOf } from '../../format';
import { useConnectionId } from '../../hooks/use-connection-id';
import { usePolled } from '../../hooks/use-polled';
import { QueueDetail } from './queue-detail';
import { QueueTable } from './queue-table';
import {
  NO_FILTERS,
  shownQueues,
  type QueueFilters,
  type QueueSort,
  type SortDirection,
} from './queues-model';
import '../../styles/operations.css';
import '../../styles/queues.css';

/** Refresh period of the table, ms. */
const REFRESH_MS = 2_000;

function FilterField(props: {
  label: keyof QueueFilters;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <label className="queues-filter">
      <span className="queues-filter__label">{props.label}</span>
      <input
        className="input"
        type="search"
        value={props.value}
        placeholder="any"
        onChange={(e) => props.onChange(e.target.value)}
        data-testid={`queues-filter-${props.label}`}
      />
    </label>
  );
}

export function QueuesView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const call = useCallback(() => client.api.listQueues({ connectionId }), [client, connectionId]);
  const { value: list, error, reload } = usePolled(call, REFRESH_MS);
  const [filters, setFilters] = useState<QueueFilters>(NO_FILTERS);
  const [sort, setSort] = useState<QueueSort>('ready');
  const [direction, setDirection] = useState<SortDirection>('desc');
  const [selectedId, setSelectedId] = useState<string | null>(null);

  const rows = useMemo(
    () => (list ? shownQueues(list.queues, filters, sort, direction) : []),
    [list, filters, sort, direction],
  );
  const selected = list?.queues.find((q) => q.id === selectedId) ?? null;
  const setFilter = (name: keyof QueueFilters) => (value: string) =>
    setFilters((f) => ({ ...f, [name]: value }));
  const sortBy = (column: QueueSort) => {
    if (column === sort) setDirection((d) => (d === 'asc' ? 'desc' : 'asc'));
    else {
      setSort(column);
      setDirection(column === 'name' ? 'asc' : 'desc');
    }
  };

  const totals = list?.queues.reduce(
    (t, q) => ({ ready: t.ready + q.ready, inFlight: t.inFlight + q.inFlight }),
    { ready: 0, inFlight: 0 },
  );
  return (
    <Page
      testId="queues-view"
      title="Queues"
      intro={
        list?.supported
          ? `${formatCountOf(list.total, 'durable queue')} · ${formatCount(totals?.ready ?? 0)} ready · ${formatCount(totals?.inFlight ?? 0)} in flight · updated ${new Date(list.fetchedAt).toLocaleTimeString('en-GB')}`
          : 'Every durable queue of the broker: one per durable subscription (realm, key, consumer).'
      }
    >
      <ConnectionProblem
        error={error}
        connectionId={connectionId}
        what="its queues"
        testId="queues-problem"
      />
      {list && !list.supported && (
        <p className="ops-empty" data-testid="queues-unsupported">
          This broker does not offer queue listing (<code>list_queues</code>).
        </p>
      )}
      {list?.supported && (
        <>
          <div className="queues-filters" role="search">
            <FilterField label="realm" value={filters.realm} onChange={setFilter('realm')} />
            <FilterField
              label="consumer"
              value={filters.consumer}
              onChange={setFilter('consumer')}
            />
            <FilterField label="key" value={filters.key} onChange={setFilter('key')} />
          </div>
          {rows.length === 0 ? (
            <p className="ops-empty" data-testid="queues-empty">
              {list.queues.length === 0
                ? 'No durable queue: queues appear when a consumer subscribes with durable: true.'
                : 'No queue matches the filters.'}
            </p>
          ) : (
            <QueueTable
              rows={rows}
              sort={sort}
              direction={direction}
              selectedId={selectedId}
              onSort={sortBy}
              onSelect={setSelectedId}
            />
          )}
          {selected && (
            <QueueDetail
              key={selected.id}
              client={client}
              connectionId={connectionId}
              row={selected}
              peers={list.queues.filter(
                (q) => q.realm === selected.realm && q.key === selected.key && q.id !== selected.id,
              )}
              fetchedAt={list.fetchedAt}
              onClose={() => setSelectedId(null)}
              reload={reload}
            />
          )}
        </>
      )}
    </Page>
  );
}
