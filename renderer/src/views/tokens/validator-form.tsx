/**
 * Adds or replaces an external validator (`set_external_auth`, §8.3) for the global, a realm or a
 * prefix scope. The shared secret is typed here, sent once to the host and cleared from the
 * form; left blank, the broker keeps the current one. It never comes back (lists show
 * "secret set" only).
 */
import { useState } from 'react';
import type { ConsoleClient } from '../../api/console-client';
import type { ConsoleAction } from '../../hooks/use-console-action';
import { TextField } from '../../components/form-fields';

type Scope = 'global' | 'realm' | 'prefix';

export function ValidatorForm({
  client,
  connectionId,
  action,
  reload,
}: {
  client: ConsoleClient;
  connectionId: string;
  action: ConsoleAction;
  reload: () => Promise<void>;
}) {
  const [scope, setScope] = useState<Scope>('prefix');
  const [target, setTarget] = useState('');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const submit = async () => {
    const typedSecret = secret;
    setSecret('');
    const done = await action.run(
      () =>
        client.api.setValidator({
          connectionId,
          scope,
          target: scope === 'global' ? '' : target.trim(),
          url: url.trim(),
          ...(typedSecret ? { secret: typedSecret } : {}),
        }),
      (v) => v.summary,
      reload,
    );
    if (done) {
      setTarget('');
      setUrl('');
    }
  };
  return (
    <form
      className="panel create-realm"
      aria-label="Set an external validator"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className="field">
        <span>Scope</span>
        <select
          value={scope}
          onChange={(e) => setScope(e.target.value as Scope)}
          data-testid="validator-scope"
        >
          <option value="prefix">realm prefix</option>
          <option value="realm">realm</option>
          <option value="global">global</option>
        </select>
      </label>
      {scope !== 'global' && (
        <label className="field">
          <span>{scope === 'realm' ? 'Realm' : 'Prefix'}</span>
          <input
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            data-testid="validator-target"
          />
        </label>
      )}
      <TextField
        label="Validator URL"
        fieldClass="field--grow"
        type="url"
        value={url}
        placeholder="https://auth.example.com/check"
        onValue={setUrl}
        testId="validator-url"
      />
      <TextField
        label="Shared secret"
        type="password"
        autoComplete="off"
        value={secret}
        placeholder="blank keeps the current"
        onValue={setSecret}
        testId="validator-secret"
      />
      <button
        type="submit"
        className="button button--primary"
        disabled={action.busy || !url.trim() || (scope !== 'global' && !target.trim())}
        data-testid="validator-set"
      >
        Set validator
      </button>
    </form>
  );
}
