/**
 * One pending authorization request (§7.4 fields) with Approve (role, default: as requested) and
 * Reject (optional reason); keys `a` and `r` do the same when no field has the focus. Keyed by
 * request id, so a new request starts with fresh inputs.
 */
import { useEffect, useRef, useState } from 'react';
import { ApprovalRole, type AuthorizationRequest } from '../../../../shared/console-api';
import type { ConsoleClient } from '../../api/console-client';
import { formatDuration } from '../../format';
import { useAppStore } from '../../store/app-store';
import { decideRequest } from '../../store/request-actions';
import { TextField } from '../../components/form-fields';

export interface RequestCardProps {
  client: ConsoleClient;
  connectionId: string;
  request: AuthorizationRequest;
  /** Epoch ms, for the age. */
  now: number;
}

export function RequestCard({ client, connectionId, request, now }: RequestCardProps) {
  const deciding = useAppStore((s) => s.deciding);
  const [role, setRole] = useState<ApprovalRole | ''>('');
  const [reason, setReason] = useState('');

  const decide = (approved: boolean): void => {
    void decideRequest(client, {
      connectionId,
      requestId: request.requestId,
      approved,
      ...(approved && role ? { role } : {}),
      ...(!approved && reason.trim() ? { reason: reason.trim() } : {}),
    });
  };
  const latest = useRef({ decide, deciding });
  useEffect(() => {
    latest.current = { decide, deciding };
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
      if (event.ctrlKey || event.metaKey || event.altKey || latest.current.deciding) return;
      if (event.key !== 'a' && event.key !== 'r') return;
      event.preventDefault();
      latest.current.decide(event.key === 'a');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <section className="panel" aria-label="Pending request" data-testid="request-card">
      <dl className="facts">
        <dt>Realm</dt>
        <dd data-testid="request-realm">{request.realm}</dd>
        <dt>Client</dt>
        <dd data-testid="request-client">
          {request.clientName || '—'} <span className="muted">({request.clientId || '—'})</span>
        </dd>
        <dt>Requested role</dt>
        <dd data-testid="request-role">{request.role}</dd>
        <dt>Age</dt>
        <dd data-testid="request-age">
          {request.createdAt === null
            ? '—'
            : formatDuration(Math.max(0, (now - request.createdAt) / 1000))}
        </dd>
        <dt>Challenge</dt>
        <dd>
          <code className="challenge" data-testid="request-challenge">
            {request.challenge ?? 'none'}
          </code>
        </dd>
      </dl>
      <div className="decision">
        <label className="field">
          <span>Role</span>
          <select
            value={role}
            onChange={(e) => setRole(e.target.value as ApprovalRole | '')}
            data-testid="request-role-select"
          >
            <option value="">as requested ({request.role})</option>
            {/* Not `admin`: the broker refuses to grant it through a request. */}
            {ApprovalRole.options.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="button button--primary"
          disabled={deciding}
          onClick={() => decide(true)}
          data-testid="request-approve"
        >
          Approve <kbd>a</kbd>
        </button>
        <TextField
          label="Reason"
          fieldClass="field--grow"
          value={reason}
          maxLength={1000}
          placeholder="optional"
          onValue={setReason}
          testId="request-reason"
        />
        <button
          type="button"
          className="button button--danger"
          disabled={deciding}
          onClick={() => decide(false)}
          data-testid="request-reject"
        >
          Reject <kbd>r</kbd>
        </button>
      </div>
    </section>
  );
}
