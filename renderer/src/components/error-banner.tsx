/**
 * An inline alert for a failed broker or action, in an operator's words (operator-message.ts).
 * Renders nothing without a message.
 */
import { operatorMessage } from '../operator-message';

export interface ErrorBannerProps {
  title: string;
  message: string | null | undefined;
  testId?: string;
}

export function ErrorBanner({ title, message, testId }: ErrorBannerProps) {
  if (!message) return null;
  return (
    <div className="error-banner" role="alert" data-testid={testId}>
      <strong>{title}</strong> {operatorMessage(message)}
    </div>
  );
}
