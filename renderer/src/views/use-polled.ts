/**
 * Loads a ConsoleApi result now and every `periodMs`, keeping the last value when a later call
 * fails (the error is reported next to it). `reload()` loads again at once (after an action).
 */
import { useCallback, useEffect, useState } from 'react';
import type { Result } from '../../../shared/console-api';
import type { ErrorInfo } from '../../../shared/error-catalogue';

export interface Polled<T> {
  value: T | null;
  error: ErrorInfo | null;
  reload: () => Promise<void>;
}

/** `call` must be stable (wrap it in `useCallback`); a new `call` reloads. */
export function usePolled<T>(call: () => Promise<Result<T>>, periodMs: number): Polled<T> {
  const [state, setState] = useState<{ value: T | null; error: ErrorInfo | null }>({
    value: null,
    error: null,
  });
  const reload = useCallback(
    () =>
      call().then((result) =>
        setState((previous) =>
          result.ok
            ? { value: result.value, error: null }
            : { value: previous.value, error: result.error },
        ),
      ),
    [call],
  );
  useEffect(() => {
    const first = setTimeout(() => void reload(), 0);
    const timer = setInterval(() => void reload(), periodMs);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [reload, periodMs]);
  return { ...state, reload };
}
