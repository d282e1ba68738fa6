/**
 * The one-shot reveal of a generated secret (a realm's pre-shared key or manager key, a
 * management token): shown once with a copy button, kept only in the owner's component state,
 * gone for good when dismissed. The console stores no copy; losing it means generating another.
 */
import { useState } from 'react';
import type { GeneratedSecret } from '../../../../shared/console-api-realms';

const KIND_LABELS: Record<GeneratedSecret['kind'], string> = {
  realmKey: 'Pre-shared key',
  managerKey: 'Manager key',
  managementToken: 'Management token',
};

/**
 * Whether `secret` belongs to a realm the latest list no longer has (it expired or was removed
 * while the reveal stayed open): its key then admits nobody, and the reveal must say so.
 */
export function secretOutlived(
  secret: Pick<GeneratedSecret, 'kind' | 'target'>,
  realms: readonly { name: string }[] | undefined,
): boolean {
  if (secret.kind === 'managementToken' || realms === undefined) return false;
  return !realms.some((r) => r.name === secret.target);
}

export function SecretReveal({
  secret,
  onDone,
  outlived = false,
}: {
  secret: GeneratedSecret;
  onDone: () => void;
  /** The realm is gone (`secretOutlived`): the value is shown struck out, with why. */
  outlived?: boolean;
}) {
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
      {outlived && (
        <p className="notice" data-testid="secret-outlived">
          Realm {secret.target} no longer exists (it expired or was removed): this key admits nobody
          now.
        </p>
      )}
      <div className="secret-reveal__value">
        <code data-testid="secret-value" className={outlived ? 'secret-reveal__void' : undefined}>
          {secret.secret}
        </code>
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
