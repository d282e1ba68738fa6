/**
 * The MQTT half of the test publisher: topic, payload (text, JSON or base64), QoS, retain, MQTT
 * version and the MQTT 5 PUBLISH properties (content type, response topic, correlation data,
 * message expiry, user properties); sends one `publishMqtt` and shows the broker's answer. Its
 * fields are an `MqttDraft` (publish-templates.ts), reported on every change.
 */
import { useEffect, useState, type ReactNode } from 'react';
import {
  MAX_MQTT_PUBLISH_CHARS,
  type MqttPublishResult,
} from '../../../../shared/console-api-mqtt-publish';
import type { ConsoleClient } from '../../api/console-client';
import { ErrorBanner } from '../../components/error-banner';
import { CheckField, TextField } from '../../components/form-fields';
import { MAX_PUBLISH_JSON_CHARS } from '../../../../shared/console-api-tap';
import { jsonProblem } from './produce-form';
import { DEFAULT_MQTT_DRAFT, parseUserProperties, type MqttDraft } from './publish-templates';
import { reachText, type PublishOutcome } from './publish-reach-text';

/** The broker's answer in words. */
export function mqttPublishSummary(result: MqttPublishResult): string {
  const time = new Date(result.at).toLocaleTimeString('en-GB');
  const answer =
    result.qos === 0
      ? 'QoS 0: sent, no acknowledgement in MQTT'
      : result.qos === 1
        ? 'PUBACK received'
        : 'PUBCOMP received';
  const retained = result.retain ? ', retained' : '';
  return `Published ${result.bytes} B to ${result.topic} in ${result.realm}${retained} at ${time} via ${result.endpoint}${reachText(result)} · ${answer}`;
}

/** What is wrong with the draft, or null when it can be sent. */
export function mqttDraftProblem(draft: MqttDraft): string | null {
  if (draft.realm.trim() === '' || draft.realm.trim() === '*') return 'Pick a realm to publish in';
  if (draft.topic === '') return 'Enter a topic';
  if (/[#+]/.test(draft.topic)) return 'A topic name has no wildcards (+, #)';
  const json = draft.format === 'json' ? jsonProblem(draft.payload) : null;
  if (json) return json;
  if (draft.format === 'base64' && !/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(draft.payload)) {
    return 'The payload is not base64';
  }
  if (draft.expirySeconds !== '' && !/^[1-9]\d*$/.test(draft.expirySeconds.trim())) {
    return 'Message expiry is a whole number of seconds';
  }
  if (draft.format !== 'json' && draft.payload.length > MAX_MQTT_PUBLISH_CHARS) {
    return `At most ${MAX_MQTT_PUBLISH_CHARS.toLocaleString('en-US')} characters`;
  }
  return mqttPortProblem(draft.port);
}

/** Why the MQTT port field is not a TCP port (1 to 65535), or null (empty: the default). */
export function mqttPortProblem(port: string): string | null {
  const text = port.trim();
  if (text === '') return null;
  const n = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  return n >= 1 && n <= 65_535 ? null : 'The MQTT port is a number from 1 to 65535';
}

function Select({
  label,
  value,
  options,
  onValue,
  testId,
}: {
  label: ReactNode;
  value: string;
  options: [string, string][];
  onValue: (value: string) => void;
  testId: string;
}) {
  return (
    <label className="field publish__small">
      {label}
      <select value={value} onChange={(e) => onValue(e.target.value)} data-testid={testId}>
        {options.map(([id, text]) => (
          <option key={id} value={id}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export interface MqttPublishFormProps {
  client: ConsoleClient;
  connectionId: string;
  defaultRealm: string;
  /** The local broker's MQTT port (the default), else null (a remote broker: 1883). */
  localMqttPort: number | null;
  initial?: MqttDraft;
  onDraft?: (draft: MqttDraft) => void;
}

export function MqttPublishForm(props: MqttPublishFormProps) {
  const { client, connectionId, defaultRealm, localMqttPort, onDraft } = props;
  const [draft, setDraft] = useState<MqttDraft>(
    props.initial ?? { ...DEFAULT_MQTT_DRAFT, realm: defaultRealm === '*' ? '' : defaultRealm },
  );
  const [busy, setBusy] = useState(false);
  // One outcome per form, of the draft it was sent with: an edit hides it (trial finding 22).
  const [outcome, setOutcome] = useState<PublishOutcome | null>(null);
  const fields = JSON.stringify(draft);
  const shown = outcome?.fields === fields ? outcome : null;
  useEffect(() => onDraft?.(draft), [onDraft, draft]);
  const set = <K extends keyof MqttDraft>(key: K, value: MqttDraft[K]): void =>
    setDraft((d) => ({ ...d, [key]: value }));

  const problem = mqttDraftProblem(draft);
  const v5 = draft.protocolVersion === 5;
  const send = async (): Promise<void> => {
    setBusy(true);
    setOutcome(null);
    const userProperties = parseUserProperties(draft.userProperties);
    const properties = v5
      ? {
          ...(draft.contentType ? { contentType: draft.contentType } : {}),
          ...(draft.responseTopic ? { responseTopic: draft.responseTopic } : {}),
          ...(draft.correlationData ? { correlationData: draft.correlationData } : {}),
          ...(draft.expirySeconds ? { messageExpirySeconds: Number(draft.expirySeconds) } : {}),
          ...(userProperties.length ? { userProperties } : {}),
        }
      : undefined;
    const result = await client.api.publishMqtt({
      connectionId,
      realm: draft.realm.trim(),
      topic: draft.topic,
      payload: draft.payload,
      format: draft.format,
      qos: draft.qos,
      retain: draft.retain,
      protocolVersion: draft.protocolVersion,
      ...(properties ? { properties } : {}),
      ...(draft.port.trim() ? { mqttPort: Number(draft.port) } : {}),
    });
    setOutcome(
      result.ok
        ? { fields, ok: true, text: mqttPublishSummary(result.value) }
        : { fields, ok: false, error: result.error },
    );
    setBusy(false);
  };

  return (
    <>
      <form
        className="publish__grid"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy && !problem) void send();
        }}
      >
        <TextField
          label="Realm"
          list="tap-realms"
          value={draft.realm}
          onValue={(v) => set('realm', v)}
          testId="mqtt-realm"
        />
        <TextField
          label="Topic"
          value={draft.topic}
          onValue={(v) => set('topic', v)}
          testId="mqtt-topic"
        />
        <TextField
          label="MQTT port"
          fieldClass="publish__small"
          inputMode="numeric"
          placeholder={localMqttPort === null ? '1883' : String(localMqttPort)}
          value={draft.port}
          onValue={(v) => set('port', v)}
          testId="mqtt-port"
        />
        <label className="field publish__json">
          Payload (up to {MAX_MQTT_PUBLISH_CHARS.toLocaleString('en-US')} characters; JSON up to{' '}
          {MAX_PUBLISH_JSON_CHARS.toLocaleString('en-US')})
          <textarea
            className={`code-editor${problem ? ' code-editor--invalid' : ''}`}
            rows={5}
            spellCheck={false}
            value={draft.payload}
            onChange={(e) => set('payload', e.target.value)}
            data-testid="mqtt-payload"
          />
        </label>
        {problem && (
          <p className="field-error" role="alert" data-testid="mqtt-problem">
            {problem}
          </p>
        )}
        <Select
          label="Format"
          value={draft.format}
          options={[
            ['json', 'JSON'],
            ['text', 'Text (UTF-8)'],
            ['base64', 'Bytes (base64)'],
          ]}
          onValue={(v) => set('format', v as MqttDraft['format'])}
          testId="mqtt-format"
        />
        <Select
          label="QoS"
          value={String(draft.qos)}
          options={[
            ['0', '0 · at most once'],
            ['1', '1 · at least once'],
            ['2', '2 · exactly once'],
          ]}
          onValue={(v) => set('qos', Number(v) as MqttDraft['qos'])}
          testId="mqtt-qos"
        />
        <Select
          label="Version"
          value={String(draft.protocolVersion)}
          options={[
            ['5', 'MQTT 5.0'],
            ['4', 'MQTT 3.1.1'],
          ]}
          onValue={(v) => set('protocolVersion', Number(v) as MqttDraft['protocolVersion'])}
          testId="mqtt-version"
        />
        <CheckField
          checkClass="box"
          checked={draft.retain}
          onChecked={(v) => set('retain', v)}
          testId="mqtt-retain"
        >
          Retain
        </CheckField>
        {v5 && (
          <fieldset className="publish__properties" data-testid="mqtt-properties">
            <legend>MQTT 5 properties</legend>
            <TextField
              label="Content type"
              placeholder={draft.format === 'json' ? 'application/json' : ''}
              value={draft.contentType}
              onValue={(v) => set('contentType', v)}
              testId="mqtt-content-type"
            />
            <TextField
              label="Response topic"
              value={draft.responseTopic}
              onValue={(v) => set('responseTopic', v)}
              testId="mqtt-response-topic"
            />
            <TextField
              label="Correlation data"
              value={draft.correlationData}
              onValue={(v) => set('correlationData', v)}
              testId="mqtt-correlation"
            />
            <TextField
              label="Message expiry (s)"
              inputMode="numeric"
              value={draft.expirySeconds}
              onValue={(v) => set('expirySeconds', v)}
              testId="mqtt-expiry"
            />
            <label className="field publish__json">
              User properties (key=value per line)
              <textarea
                className="code-editor"
                rows={2}
                spellCheck={false}
                value={draft.userProperties}
                onChange={(e) => set('userProperties', e.target.value)}
                data-testid="mqtt-user-properties"
              />
            </label>
          </fieldset>
        )}
        <div className="publish__actions">
          <button
            type="submit"
            className="button button--primary"
            disabled={busy || problem !== null}
            data-testid="mqtt-send"
          >
            {busy ? 'Publishing…' : 'Publish over MQTT'}
          </button>
          {shown?.ok && (
            <span className="muted" role="status" data-testid="mqtt-result">
              {shown.text}
            </span>
          )}
        </div>
      </form>
      {shown && !shown.ok && (
        <ErrorBanner
          title="MQTT publish failed:"
          message={shown.error.message}
          testId="mqtt-error"
        />
      )}
    </>
  );
}
