/**
 * Why a view cannot read the selected connection, and what to do about it: the broker refused
 * the console's credential, or the connection has none a signed management command can use
 * (`SWB_ERR_UNAUTHORIZED`, from `ManagerPool.get` or the broker's 401/403 mapped by
 * `brokerError`), with a button that opens that connection's editor in Connections
 * (`#/connections?edit=<id>`). Other failures (unreachable, local broker stopped) get their own
 * hint. Renders nothing without an error.
 */
import { LOCAL_CONNECTION_ID } from '../../../shared/console-api';
import type { ErrorInfo } from '../../../shared/error-catalogue';
import { goToSection } from '../navigation/hash-route';
import { useAppStore } from '../store/app-store';

export interface ConnectionProblemProps {
  error: ErrorInfo | null | undefined;
  connectionId: string;
  /** What the view could not load, e.g. "the dead-letter queue". */
  what: string;
  testId: string;
}

export function ConnectionProblem({ error, connectionId, what, testId }: ConnectionProblemProps) {
  const connection = useAppStore((s) => s.connections.find((c) => c.id === connectionId));
  if (!error) return null;
  const name =
    connection?.name ?? (connectionId === LOCAL_CONNECTION_ID ? 'Local broker' : connectionId);
  const editable = connection ? !connection.builtIn : connectionId !== LOCAL_CONNECTION_ID;

  let title: string;
  let advice: string;
  let action: { label: string; go(): void } | null = null;
  // The raw message, unless the advice already says all of it.
  let detail = true;
  if (error.code === 'SWB_ERR_UNAUTHORIZED') {
    const credential = connection?.credential;
    const missing = credential?.kind === 'none' || connection?.hasSecret === false;
    title = missing
      ? `No credential for ${name}`
      : `${name}: the broker refused the console's credential`;
    advice = missing
      ? `The console signs management commands with the connection's admin token, and ${name} has none, so ${what} cannot be read.`
      : credential?.kind === 'realm-manager'
        ? `A realm manager key only answers its realm's authorization requests; reading ${what} needs the broker's admin token.`
        : `Reading ${what} needs the broker's admin token; the one stored for ${name} is not accepted (wrong, revoked or not an admin token).`;
    advice += ` Enter the broker's admin token in ${name}'s connection settings.`;
    detail = !missing;
    action = editable
      ? {
          label: `Edit ${name}'s credential in Connections`,
          go: () => goToSection('connections', { edit: connectionId }),
        }
      : { label: 'Open Connections', go: () => goToSection('connections') };
  } else if (error.code === 'SWB_ERR_BROKER_NOT_RUNNING') {
    title = 'The local broker is not running';
    advice = `Start it on the Broker process page; this page shows ${what} once it runs.`;
    action = { label: 'Open Broker process', go: () => goToSection('local') };
  } else if (error.code === 'SWB_ERR_BROKER_UNREACHABLE') {
    title = `${name} does not answer`;
    advice = `Check that the broker is running and that the connection's URL is right (Test it in Connections), then Refresh to read ${what} again.`;
    action = { label: 'Open Connections', go: () => goToSection('connections') };
  } else {
    title = `Cannot read ${what}`;
    advice = '';
  }

  return (
    <div className="error-banner connection-problem" role="alert" data-testid={testId}>
      <strong className="connection-problem__title">{title}</strong>
      <p className="connection-problem__text">
        {advice} {detail && <span className="connection-problem__detail">({error.message})</span>}
      </p>
      {action && (
        <button
          type="button"
          className="button"
          onClick={action.go}
          data-testid={`${testId}-action`}
        >
          {action.label}
        </button>
      )}
    </div>
  );
}
