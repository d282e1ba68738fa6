/**
 * The one-shot reveal of a generated secret (a realm's pre-shared key or manager key, a
 * management token): shown once with a copy button, kept only in the owner's component state,
 * gone for good when dismissed. The console stores no copy; losing it means generating another.
 */
import { useState } from 'react';
import type { GeneratedSecret } from '../../../shared/console-api-realms';

const KIND_LABELS: Record<GeneratedSecret['kind'], string> = {
  realmKey: 'Pre-shared key',
  managerKey: 'Manager key',
  managementToken: 'Management token',
};

export function SecretReveal({ secret, onDone }: { secret: GeneratedSecret; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = (): void => {
    navigator.clipboard.writeText(secret.secret).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  };
  return (
    <section className="panel secret-reveal" role="alert" data-testid="secret-reveal">
      <h3 className="secret-reveal__title">
        {KIND_LABELS[secret.kind]} for {secret.target}
      </h3>
      <p className="muted">
        Copy it now: it is shown only this once. The console keeps no copy; if it is lost, generate
        a new one.
      </p>
      <div className="secret-reveal__value">
        <code data-testid="secret-value">{secret.secret}</code>
      </div>
      <div className="row-actions">
        <button
          type="button"
          className="button button--primary"
          onClick={copy}
          data-testid="secret-copy"
        >
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="button" onClick={onDone} data-testid="secret-done">
          Done, hide it
        </button>
        {copied === 'failed' && (
          <span className="muted">Copy failed: select the text and copy it by hand.</span>
        )}
      </div>
    </section>
  );
}
