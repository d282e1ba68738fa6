/**
 * Full-page screens for a console link that cannot work (no token, or a token the console host
 * refuses) and the banner shown while the host is unreachable. One clear message with what to
 * do — never a dashboard skeleton with an error banner.
 */

/** The page has no console token, or the host refused it (`unauthorized`). */
export function HostAccessScreen({ reason }: { reason: 'missing' | 'refused' }) {
  return (
    <main className="host-screen" data-testid="host-access-screen" data-reason={reason}>
      <div className="host-screen__card" role="alert">
        <h2 className="host-screen__title">
          {reason === 'refused'
            ? 'This console link is no longer valid'
            : 'Open the console with its link'}
        </h2>
        <p>
          {reason === 'refused'
            ? 'The console refused this page’s access token. Each start of the console makes a new one, so a link from an earlier start (or a mistyped one) stops working.'
            : 'This page needs the access token that the console prints when it starts.'}
        </p>
        <p>What to do:</p>
        <ol className="host-screen__steps">
          <li>
            Find the terminal running <code>npm run console</code> (start it if it is not running).
          </li>
          <li>
            Open the line it printed, <code>Console: http://127.0.0.1:…/#token=…</code>, in this
            tab.
          </li>
        </ol>
      </div>
    </main>
  );
}

/** Shown above every view while the console host is unreachable. */
export function StaleBanner() {
  return (
    <div className="stale-banner" role="alert" data-testid="stale-banner">
      <strong>Lost contact with the console.</strong> Everything below is stale and actions are
      disabled until it is back; this page reconnects on its own. If you stopped{' '}
      <code>npm run console</code>, start it again and open its new link.
    </div>
  );
}
