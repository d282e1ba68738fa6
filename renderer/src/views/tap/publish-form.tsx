/**
 * The test publisher below the Live tap, for both protocols (issue 27): a tyo-mq `PRODUCE`
 * (produce-form.tsx) or an MQTT `PUBLISH` with QoS, retain and MQTT 5 properties
 * (mqtt-publish-form.tsx), and templates saved per connection (publish-templates.ts). Loading
 * a template switches to its protocol and fills the form; saving stores the form as it is.
 */
import { useCallback, useEffect, useState } from 'react';
import { LOCAL_CONNECTION_ID } from '../../../../shared/console-api';
import type { ConsoleClient } from '../../api/console-client';
import { MqttPublishForm } from './mqtt-publish-form';
import { ProduceForm } from './produce-form';
import {
  deleteTemplate,
  loadTemplates,
  saveTemplate,
  type MqttDraft,
  type ProduceDraft,
  type PublishProtocol,
  type PublishTemplate,
} from './publish-templates';

export { jsonProblem, publishSummary } from './produce-form';

export interface PublishFormProps {
  client: ConsoleClient;
  connectionId: string;
  /** The tap's realm: the forms' realm follows it (not `*`, which is no realm to publish to). */
  defaultRealm: string;
}

export function PublishForm({ client, connectionId, defaultRealm }: PublishFormProps) {
  const [protocol, setProtocol] = useState<PublishProtocol>('tyo-mq');
  const [templates, setTemplates] = useState<PublishTemplate[]>(() => loadTemplates(connectionId));
  const [name, setName] = useState('');
  const [picked, setPicked] = useState('');
  /** Bumped to remount the form with a loaded template. */
  const [generation, setGeneration] = useState(0);
  // The forms' latest fields: a form remounted (protocol switched back, template loaded)
  // starts from them, so switching protocols loses nothing.
  const [drafts, setDrafts] = useState<{ produce: ProduceDraft | null; mqtt: MqttDraft | null }>({
    produce: null,
    mqtt: null,
  });
  const onProduceDraft = useCallback(
    (produce: ProduceDraft) => setDrafts((d) => ({ ...d, produce })),
    [],
  );
  const onMqttDraft = useCallback((mqtt: MqttDraft) => setDrafts((d) => ({ ...d, mqtt })), []);
  const [localPort, setLocalPort] = useState<number | null>(null);
  const localMqttPort = connectionId === LOCAL_CONNECTION_ID ? localPort : null;

  // Another connection: its own templates, fresh forms (state adjusted during render).
  const [shownFor, setShownFor] = useState(connectionId);
  if (shownFor !== connectionId) {
    setShownFor(connectionId);
    setTemplates(loadTemplates(connectionId));
    setPicked('');
    setDrafts({ produce: null, mqtt: null });
  }

  useEffect(() => {
    if (connectionId !== LOCAL_CONNECTION_ID) return;
    let live = true;
    void client.api.getLocalBroker({}).then((result) => {
      if (live && result.ok) setLocalPort(result.value.mqttPort);
    });
    return () => {
      live = false;
    };
  }, [client, connectionId]);

  const save = (): void => {
    const trimmed = name.trim();
    if (trimmed === '') return;
    const template: PublishTemplate | null =
      protocol === 'mqtt'
        ? drafts.mqtt && { name: trimmed, protocol, draft: drafts.mqtt }
        : drafts.produce && { name: trimmed, protocol, draft: drafts.produce };
    if (!template) return;
    setTemplates(saveTemplate(connectionId, template));
    setPicked(trimmed);
  };
  const load = (templateName: string): void => {
    setPicked(templateName);
    const template = templates.find((t) => t.name === templateName);
    if (!template) return;
    if (template.protocol === 'mqtt') setDrafts((d) => ({ ...d, mqtt: template.draft }));
    else setDrafts((d) => ({ ...d, produce: template.draft }));
    setProtocol(template.protocol);
    setName(template.name);
    setGeneration((n) => n + 1);
  };
  const remove = (): void => {
    if (picked === '') return;
    setTemplates(deleteTemplate(connectionId, picked));
    setPicked('');
  };

  return (
    <section className="panel publish" aria-label="Publish a test message">
      <div className="publish__head">
        <h3 className="section-title publish__title">Publish a test message</h3>
        <div className="ops-segmented" role="group" aria-label="Protocol">
          {(
            [
              ['tyo-mq', 'tyo-mq PRODUCE'],
              ['mqtt', 'MQTT PUBLISH'],
            ] as const
          ).map(([id, text]) => (
            <button
              key={id}
              type="button"
              className={`ops-segmented__item${protocol === id ? ' ops-segmented__item--on' : ''}`}
              aria-pressed={protocol === id}
              onClick={() => setProtocol(id)}
              data-testid={`publish-protocol-${id}`}
            >
              {text}
            </button>
          ))}
        </div>
      </div>
      <div className="publish__templates" role="group" aria-label="Templates">
        <label className="field">
          Template
          <select
            value={picked}
            onChange={(e) => load(e.target.value)}
            data-testid="publish-template"
          >
            <option value="">
              {templates.length ? '— pick a saved template —' : 'none saved'}
            </option>
            {templates.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name} ({t.protocol === 'mqtt' ? 'MQTT' : 'tyo-mq'})
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Save as
          <input
            value={name}
            maxLength={100}
            placeholder="template name"
            onChange={(e) => setName(e.target.value)}
            data-testid="publish-template-name"
          />
        </label>
        <button
          type="button"
          className="button"
          disabled={name.trim() === ''}
          onClick={save}
          data-testid="publish-template-save"
        >
          Save template
        </button>
        <button
          type="button"
          className="button"
          disabled={picked === ''}
          onClick={remove}
          data-testid="publish-template-delete"
        >
          Delete
        </button>
      </div>
      {protocol === 'mqtt' ? (
        <MqttPublishForm
          key={`mqtt-${connectionId}-${generation}`}
          client={client}
          connectionId={connectionId}
          defaultRealm={defaultRealm}
          localMqttPort={localMqttPort}
          initial={drafts.mqtt ?? undefined}
          onDraft={onMqttDraft}
        />
      ) : (
        <ProduceForm
          key={`produce-${connectionId}-${generation}`}
          client={client}
          connectionId={connectionId}
          defaultRealm={defaultRealm}
          initial={drafts.produce ?? undefined}
          onDraft={onProduceDraft}
        />
      )}
    </section>
  );
}
