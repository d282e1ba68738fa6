/**
 * The tyo-mq half of the test publisher: a JSON editor checked as you type, event, realm,
 * guaranteed and TTL options; sends one `PRODUCE` through `publishMessage` and shows the
 * broker's confirm. Its realm follows the tap's (`defaultRealm`) until the tap's realm changes
 * again. Its fields are a `ProduceDraft` (publish-templates.ts), reported on every change so
 * that they can be saved as a template.
 */
import { useEffect, useState } from 'react';
import { MAX_PUBLISH_JSON_CHARS, type PublishResult } from '../../../../shared/console-api-tap';
import type { ConsoleClient } from '../../api/console-client';
import { CheckField, TextField } from '../../components/form-fields';
import { DEFAULT_PRODUCE_DRAFT, type ProduceDraft } from './publish-templates';
import { reachText } from './publish-reach-text';
import { ErrorBanner } from '../../components/error-banner';
import type { PublishOutcome } from './publish-reach-text';

/**
 * The confirm in words: what was published where and how many durable copies the broker
 * stored, with why when the message was not guaranteed and copies were still stored (the event
 * has durable subscriptions, which keep a copy of every message, guaranteed or not).
 */
export function publishSummary(result: PublishResult, guaranteed: boolean): string {
  const time = new Date(result.at).toLocaleTimeString('en-GB');
  const n = result.storedCopies;
  const copies = `${n} durable cop${n === 1 ? 'y' : 'ies'}`;
  let why: string;
  if (n === 0) {
    why = guaranteed
      ? 'no durable copy: no subscriber of this event was offline or durable'
      : 'no durable copy stored';
  } else if (guaranteed) {
    why = `${copies} stored (guaranteed: kept for subscribers until delivered)`;
  } else {
    why =
      `${copies} stored although not guaranteed: this event has ` +
      `${n === 1 ? 'a durable subscriber' : 'durable subscribers'}, and a durable subscription ` +
      'keeps a copy of every message';
  }
  return `Published ${result.event} to ${result.realm} at ${time}${reachText(result)} · ${why}`;
}

/** Why `text` is not JSON, or null when it is. */
export function jsonProblem(text: string): string | null {
  if (text.trim() === '') return 'Enter a JSON value, e.g. {"hello": "world"}';
  if (text.length > MAX_PUBLISH_JSON_CHARS) {
    return `At most ${MAX_PUBLISH_JSON_CHARS.toLocaleString('en-US')} characters (this one has ${text.length.toLocaleString('en-US')})`;
  }
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

export interface PublishFormProps {
  client: ConsoleClient;
  connectionId: string;
  /** The tap's realm: the form's realm follows it (not `*`, which is no realm to publish to). */
  defaultRealm: string;
  /** Fields to start from (a loaded template); the realm then starts as the template's. */
  initial?: ProduceDraft;
  /** Told the fields after every change. */
  onDraft?: (draft: ProduceDraft) => void;
}

export function ProduceForm({
  client,
  connectionId,
  defaultRealm,
  initial,
  onDraft,
}: PublishFormProps) {
  const start = initial ?? { ...DEFAULT_PRODUCE_DRAFT, realm: defaultRealm };
  const [realm, setRealm] = useState(start.realm || defaultRealm);
  const [event, setEvent] = useState(start.event);
  const [from, setFrom] = useState(start.from);
  const [json, setJson] = useState(start.json);
  const [guaranteed, setGuaranteed] = useState(start.guaranteed);
  const [ttl, setTtl] = useState(start.ttl);
  useEffect(() => {
    onDraft?.({ realm, event, from, json, guaranteed, ttl });
  }, [onDraft, realm, event, from, json, guaranteed, ttl]);
  const [busy, setBusy] = useState(false);
  // One outcome per form, of the fields it was sent with: an edit hides it (trial finding 22).
  const [outcome, setOutcome] = useState<PublishOutcome | null>(null);
  const fields = JSON.stringify([realm, event, from, json, guaranteed, ttl]);
  const shown = outcome?.fields === fields ? outcome : null;

  // Follows the tap's realm when that changes (state adjusted during render, not in an effect).
  const [followed, setFollowed] = useState(defaultRealm);
  if (defaultRealm !== followed) {
    setFollowed(defaultRealm);
    if (defaultRealm !== '' && defaultRealm !== '*') setRealm(defaultRealm);
  }

  const problem = jsonProblem(json);
  const ttlValue = ttl.trim() === '' ? undefined : Number(ttl);
  const ttlProblem =
    ttlValue !== undefined && (!Number.isInteger(ttlValue) || ttlValue < 0)
      ? 'TTL is a whole number of seconds'
      : null;
  const canSend = !busy && !problem && !ttlProblem && realm.trim() !== '' && event.trim() !== '';

  const send = async (): Promise<void> => {
    setBusy(true);
    setOutcome(null);
    const result = await client.api.publishMessage({
      connectionId,
      realm: realm.trim(),
      event: event.trim(),
      from: from.trim() || undefined,
      messageJson: json,
      guaranteed,
      ttlSeconds: ttlValue,
    });
    setOutcome(
      result.ok
        ? { fields, ok: true, text: publishSummary(result.value, guaranteed) }
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
          if (canSend) void send();
        }}
      >
        <TextField
          label="Realm"
          list="tap-realms"
          value={realm}
          onValue={setRealm}
          testId="publish-realm"
        />
        <TextField label="Event" value={event} onValue={setEvent} testId="publish-event" />
        <TextField
          label="From (producer name)"
          value={from}
          onValue={setFrom}
          testId="publish-from"
        />
        <label className="field publish__json">
          Message (JSON, up to {MAX_PUBLISH_JSON_CHARS.toLocaleString('en-US')} characters)
          <textarea
            className={`code-editor${problem ? ' code-editor--invalid' : ''}`}
            rows={6}
            spellCheck={false}
            value={json}
            onChange={(e) => setJson(e.target.value)}
            aria-invalid={problem ? true : undefined}
            data-testid="publish-json"
          />
        </label>
        {problem && (
          <p className="field-error" role="alert" data-testid="publish-json-error">
            {problem}
          </p>
        )}
        <CheckField
          checkClass="box"

          checked={guaranteed}
          onChecked={setGuaranteed}
          testId="publish-guaranteed"
        >
          Guaranteed (stored for offline subscribers)
        </CheckField>
        <TextField
          label="TTL of stored copies (s)"
          fieldClass="publish__ttl"
          inputMode="numeric"
          placeholder="broker default"
          value={ttl}
          onValue={setTtl}
          testId="publish-ttl"
        />
        {ttlProblem && <p className="field-error">{ttlProblem}</p>}
        <div className="publish__actions">
          <button
            type="submit"
            className="button button--primary"
            disabled={!canSend}
            data-testid="publish-send"
          >
            {busy ? 'Publishing…' : 'Publish'}
          </button>
          {shown?.ok && (
            <span className="muted" role="status" data-testid="publish-result">
              {shown.text}
            </span>
          )}
        </div>
      </form>
      {shown && !shown.ok && (
        <ErrorBanner title="Publish failed:" message={shown.error.message} testId="publish-error" />
      )}
    </>
  );
}
