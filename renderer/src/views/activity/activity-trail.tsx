/**
 * The trail of a DLQ replay in an Activity entry (issue 27): per replayed dead letter its old
 * DLQ id → the id of its re-queued copy (what the consumer receives and ACKs) and where the
 * copy went — consumer, subscription key, realm — as the broker's `dlq_replay` reply named them
 * (docs/management.md "DLQ commands"). A plain tyo-mq broker names none of them: the ids alone
 * are shown, with a word saying so.
 */
import type { ActivityTrailStep } from '../../../../shared/console-api-activity';
import { formatCount } from '../../format';

function Where({ step }: { step: ActivityTrailStep }) {
  if (!step.consumer && !step.event && !step.realm) {
    return <span className="muted">the broker did not say where</span>;
  }
  return (
    <>
      {step.consumer && (
        <span>
          consumer <strong data-testid="activity-trail-consumer">{step.consumer}</strong>
        </span>
      )}
      {step.event && (
        <span>
          key <code data-testid="activity-trail-event">{step.event}</code>
        </span>
      )}
      {step.realm && (
        <span>
          realm <span data-testid="activity-trail-realm">{step.realm}</span>
        </span>
      )}
    </>
  );
}

/** The steps of one replay, in reply order; `omitted` replayed entries past the list are counted. */
export function ActivityTrail({
  steps,
  omitted,
}: {
  steps: readonly ActivityTrailStep[];
  omitted?: number;
}) {
  return (
    // Spans with list roles: the trail sits inside the entry's inline text (an <ol> may not).
    <span
      role="list"
      className="activity-trail"
      aria-label="Replay trail"
      data-testid="activity-trail"
    >
      {steps.map((step) => (
        <span
          key={step.from}
          role="listitem"
          className="activity-trail__step"
          data-testid="activity-trail-step"
        >
          <span className="activity-trail__ids">
            <code title="Dead-letter id (gone after the replay)" data-testid="activity-trail-from">
              {step.from}
            </code>
            <span aria-label="became"> → </span>
            <code title="Id of the re-queued copy" data-testid="activity-trail-to">
              {step.to}
            </code>
          </span>
          <span className="activity-trail__where" data-testid="activity-trail-where">
            <Where step={step} />
          </span>
        </span>
      ))}
      {omitted !== undefined && omitted > 0 && (
        <span role="listitem" className="activity-trail__step muted">
          and {formatCount(omitted)} more not listed
        </span>
      )}
    </span>
  );
}
