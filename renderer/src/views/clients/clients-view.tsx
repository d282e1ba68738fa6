/**
 * Clients: the producers and consumers registered with the broker, per realm, each consumer with
 * its subscriptions (key, mode, group, durable, ACK) and durable backlog. Read from the broker's
 * `GET /api/clients` every 2 s; connected MQTT clients (issue 14) are listed in their realm's
 * section with their filters and QoS. A connected client's "Details" opens its detail panel
 * (client-detail-panel.tsx: fields, event history, "Force close" over Switchboard's
 * `close_client`, issue 27); a broker without those commands says so in the panel.
 * This console's own sockets are labelled, offline leftovers without an id of their own are
 * hidden behind a toggle, and a producer's MQTT subscribers are counted (clients-model.ts). Each
 * connected client shows its messages in / out per second (client-rate-line.tsx), and the rows
 * of each realm sort as registered, by name or busiest first (in or out).
 */
import { useEffect, useState } from 'react';
import type { ClientList } from '../../../../shared/console-api-operations';

import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import { formatCount, formatCountOf } from '../../format';
import {
  buildClientsModel,
  type ClientSort,
  type ConsumerRow,
  type ProducerRow,
} from './clients-model';
import { ClientRateLine } from './client-rate-line';
import { MqttClientCard } from './mqtt-client-card';
import { ClientDetailPanel, type ClientTarget } from './client-detail-panel';
import { useConnectionId } from '../../hooks/use-connection-id';
import '../../styles/operations.css';
import { Page } from '../../components/page';

/** Refresh period of the listing, ms. */
const REFRESH_MS = 2_000;

const ackLabel = (required: boolean, timeoutMs: number): string =>
  required
    ? `ACK within ${timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`
    : 'no ACK';

/** The "Details" button of a row bound to a live connection (`socket_id`), else nothing. */
export function DetailsButton({ testId, onOpen }: { testId: string; onOpen?: () => void }) {
  if (!onOpen) return null;
  return (
    <button type="button" className="button ops-open" onClick={onOpen} data-testid={testId}>
      Details
    </button>
  );
}

type Open = (target: ClientTarget) => void;

function ProducerCard({ row, realm, onOpen }: { row: ProducerRow; realm: string; onOpen: Open }) {
  const { producer } = row;
  const socketId = producer.socket_id;
  return (
    <li className="ops-client" data-testid={`client-producer-${producer.name}`}>
      <div className="ops-client__head">
        <strong>{producer.name}</strong>
        {row.label && <span className="ops-flag ops-flag--console">{row.label}</span>}
        <StatusBadge
          label={producer.placeholder ? 'never connected' : producer.online ? 'online' : 'offline'}
          tone={producer.online ? 'ok' : 'idle'}
        />
        <DetailsButton
          testId={`client-open-producer-${producer.name}`}
          onOpen={
            socketId
              ? () => onOpen({ realm, clientId: socketId, label: `Producer ${producer.name}` })
              : undefined
          }
        />
      </div>
      <p className="muted small" data-testid="client-producer-subscribers">
        {row.subscribersText}
        {row.id && ` · id ${row.id}`}
      </p>
      <ClientRateLine rate={row.rate} />
    </li>
  );
}

function ConsumerCard({ row, realm, onOpen }: { row: ConsumerRow; realm: string; onOpen: Open }) {
  const { consumer } = row;
  const socketId = consumer.socket_id;
  return (
    <li className="ops-client" data-testid={`client-consumer-${consumer.name}`}>
      <div className="ops-client__head">
        <strong>{consumer.name}</strong>
        {row.label && <span className="ops-flag ops-flag--console">{row.label}</span>}
        <StatusBadge
          label={consumer.online ? 'online' : 'offline'}
          tone={consumer.online ? 'ok' : 'idle'}
        />
        <DetailsButton
          testId={`client-open-consumer-${consumer.name}`}
          onOpen={
            socketId
              ? () => onOpen({ realm, clientId: socketId, label: `Consumer ${consumer.name}` })
              : undefined
          }
        />
      </div>
      {row.id && <p className="muted small">id {row.id}</p>}
      <ClientRateLine rate={row.rate} />
      {consumer.subscriptions.length === 0 ? (
        <p className="muted small">No subscriptions.</p>
      ) : (
        <ul className="ops-subs">
          {consumer.subscriptions.map((sub) => (
            <li key={sub.key} className="ops-sub" data-testid="client-subscription">
              <code className="ops-sub__key">{sub.key}</code>
              <span className="ops-sub__facts">
                <span>
                  {sub.mode === 'topic' ? `topic ${sub.pattern ?? ''}` : `from ${sub.producer}`}
                </span>
                {sub.group && <span>group {sub.group}</span>}
                <span>{sub.durable ? 'durable' : 'live only'}</span>
                <span>{ackLabel(sub.ack_required, sub.ack_timeout_ms)}</span>
                {sub.durable && (
                  <span data-testid="client-backlog" data-value={sub.backlog}>
                    backlog {formatCount(sub.backlog)}
                  </span>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

export function ClientsView({ client }: { client: ConsoleClient }) {
  const connectionId = useConnectionId();
  const [list, setList] = useState<ClientList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [onlineOnly, setOnlineOnly] = useState(false);
  const [showLeftovers, setShowLeftovers] = useState(false);
  const [selected, setSelected] = useState<ClientTarget | null>(null);
  const [sort, setSort] = useState<ClientSort>('listed');

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const load = async (): Promise<void> => {
      const result = await client.api.listClients({ connectionId });
      if (!live) return;
      if (result.ok) {
        setList(result.value);
        setError(null);
      } else {
        setError(
          `${result.error.message} — the list refreshes on its own once the broker answers.`,
        );
      }
      timer = setTimeout(() => void load(), REFRESH_MS);
    };
    void load();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [client, connectionId]);

  const model = list ? buildClientsModel(list, { onlineOnly, showLeftovers, sort }) : null;
  const realms = model?.realms ?? [];

  return (
    <Page
      testId="clients-view"
      title="Clients"
      intro={
        <>{list ? `Updated ${new Date(list.fetchedAt).toLocaleTimeString('en-GB')}` : 'Loading…'}</>
      }
      aside={
        <>
          <div className="ops-wrap">
            <label className="ops-sort">
              Sort
              <select
                className="input"
                value={sort}
                onChange={(e) => setSort(e.target.value as ClientSort)}
                data-testid="clients-sort"
              >
                <option value="listed">as registered</option>
                <option value="name">by name</option>
                <option value="in">messages in/s</option>
                <option value="out">messages out/s</option>
              </select>
            </label>
            <label className="ops-check">
              <input
                type="checkbox"
                checked={onlineOnly}
                onChange={(e) => setOnlineOnly(e.target.checked)}
              />
              Online only
            </label>
            <label
              className="ops-check"
              title="Offline registrations with no id of their own and nothing waiting for them"
              data-testid="clients-show-leftovers-label"
            >
              <input
                type="checkbox"
                checked={showLeftovers}
                onChange={(e) => setShowLeftovers(e.target.checked)}
                data-testid="clients-show-leftovers"
              />
              Show offline leftovers
              {model && model.leftovers > 0 && ` (${formatCount(model.leftovers)} hidden)`}
            </label>
          </div>
        </>
      }
    >
      <ErrorBanner title="Clients:" message={error} testId="clients-error" />
      <p className="muted ops-note" data-testid="clients-disconnect-note">
        Open a connected client&apos;s Details for its history and to force-close it. That needs
        Switchboard&apos;s <code>close_client</code>; on a plain tyo-mq broker, revoke the
        client&apos;s token (in Tokens) or remove its realm instead.
      </p>
      {selected && (
        <ClientDetailPanel
          key={`${selected.realm}\u0000${selected.clientId}`}
          client={client}
          connectionId={connectionId}
          target={selected}
          onClose={() => setSelected(null)}
        />
      )}
      {model?.consoleNote && (
        <p className="muted ops-note" data-testid="clients-console-note">
          {model.consoleNote}
        </p>
      )}
      {list && realms.length === 0 && (
        <p className="ops-empty" data-testid="clients-empty">
          No producers or consumers are registered and no MQTT client is connected. Clients appear
          here as soon as they identify themselves (<code>PRODUCER</code>, <code>CONSUMER</code>,
          <code>SUBSCRIBE</code>) or connect over MQTT.
        </p>
      )}
      {realms.map((realm) => (
        <section key={realm.name} className="panel" data-testid={`clients-realm-${realm.name}`}>
          <h3 className="section-title ops-realm-title">
            Realm {realm.name}{' '}
            <span className="muted small">
              {formatCountOf(realm.producers.length, 'producer')} ·{' '}
              {formatCountOf(realm.consumers.length, 'consumer')}
              {realm.mqtt.length > 0 && ` · ${formatCount(realm.mqtt.length)} MQTT`}
              {realm.sse.length > 0 && ` · ${formatCountOf(realm.sse.length, 'SSE stream')}`}
            </span>
          </h3>
          <div className="ops-clients">
            <div>
              <h4 className="ops-detail__sub">Producers</h4>
              {realm.producers.length === 0 ? (
                <p className="muted small">None.</p>
              ) : (
                <ul className="ops-client-list">
                  {realm.producers.map((row) => (
                    <ProducerCard
                      key={row.producer.name}
                      row={row}
                      realm={realm.name}
                      onOpen={setSelected}
                    />
                  ))}
                </ul>
              )}
            </div>
            <div>
              <h4 className="ops-detail__sub">Consumers</h4>
              {realm.consumers.length === 0 ? (
                <p className="muted small">None.</p>
              ) : (
                <ul className="ops-client-list">
                  {realm.consumers.map((row) => (
                    <ConsumerCard
                      key={row.consumer.name}
                      row={row}
                      realm={realm.name}
                      onOpen={setSelected}
                    />
                  ))}
                </ul>
              )}
            </div>
            {realm.mqtt.length > 0 && (
              <div>
                <h4 className="ops-detail__sub">MQTT clients</h4>
                <ul className="ops-client-list">
                  {realm.mqtt.map(({ client: m, rate }) => (
                    <MqttClientCard
                      key={m.client_id}
                      client={m}
                      rate={rate}
                      onOpen={() =>
                        setSelected({
                          realm: realm.name,
                          clientId: m.client_id,
                          label: `MQTT ${m.client_id || '(empty client id)'}`,
                        })
                      }
                    />
                  ))}
                </ul>
              </div>
            )}
            {realm.sse.length > 0 && (
              <div>
                <h4 className="ops-detail__sub">SSE streams</h4>
                <ul className="ops-client-list">
                  {realm.sse.map((s, i) => (
                    <li
                      key={`${s.event}\u0000${s.opened_at}\u0000${i}`}
                      className="ops-client"
                      data-testid="client-sse"
                    >
                      <div className="ops-client__head">
                        <span className="tag">SSE</span>
                        <strong>
                          <code>{s.event}</code>
                        </strong>
                        <StatusBadge label="open" tone="ok" />
                      </div>
                      <p className="muted small">
                        role {s.role} · since {new Date(s.opened_at).toLocaleTimeString('en-GB')}
                      </p>
                    </li>
                  ))}
                </ul>
              </div>
            )}
          </div>
        </section>
      ))}
    </Page>
  );
}
