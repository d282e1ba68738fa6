/**
 * Runs ConsoleApi mutations for a view: one at a time, with the last outcome (a confirmation
 * line or the error) to show. Results never hold secrets, except `revealGeneratedSecret`, whose
 * value the caller keeps in its own component state only.
 */
import { useCallback, useState } from 'react';
import type { Result } from '../../../shared/console-api';
import type { ErrorInfo } from '../../../shared/error-catalogue';

export interface ConsoleAction {
  busy: boolean;
  error: ErrorInfo | null;
  message: string | null;
  /** Runs `call`; on success shows `summary(value)` and runs `after`. Resolves with the value or null. */
  run<T>(
    call: () => Promise<Result<T>>,
    summary: (value: T) => string,
    after?: () => void | Promise<void>,
  ): Promise<T | null>;
  clear(): void;
}

export function useConsoleAction(): ConsoleAction {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const run = useCallback(
    async <T>(
      call: () => Promise<Result<T>>,
      summary: (value: T) => string,
      after?: () => void | Promise<void>,
    ): Promise<T | null> => {
      setBusy(true);
      setError(null);
      setMessage(null);
      try {
        const result = await call();
        if (!result.ok) {
          setError(result.error);
          return null;
        }
        setMessage(summary(result.value));
        await after?.();
        return result.value;
      } finally {
        setBusy(false);
      }
    },
    [],
  );
  const clear = useCallback(() => {
    setError(null);
    setMessage(null);
  }, []);
  return { busy, error, message, run, clear };
}
