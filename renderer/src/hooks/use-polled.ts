/**
 * Loads a ConsoleApi result now and every `periodMs`, keeping the last value when a later call
 * fails (the error is reported next to it). `reload()` loads again at once (after an action).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Result } from '../../../shared/console-api';
import type { ErrorInfo } from '../../../shared/error-catalogue';

export interface Polled<T> {
  value: T | null;
  error: ErrorInfo | null;
  reload: () => Promise<void>;
}

/**
 * `call` must be stable (wrap it in `useCallback`); a new `call` (e.g. another connection) starts
 * afresh: the previous call's value and error are not shown for it.
 */
export function usePolled<T>(call: () => Promise<Result<T>>, periodMs: number): Polled<T> {
  const [state, setState] = useState<{
    call: (() => Promise<Result<T>>) | null;
    value: T | null;
    error: ErrorInfo | null;
  }>({ call: null, value: null, error: null });
  // The call in use: an answer to a replaced call that lands late is dropped.
  const latest = useRef(call);
  useEffect(() => {
    latest.current = call;
  }, [call]);
  const reload = useCallback(
    () =>
      call().then((result) =>
        setState((previous) => {
          if (latest.current !== call) return previous;
          const kept = previous.call === call ? previous.value : null;
          return result.ok
            ? { call, value: result.value, error: null }
            : { call, value: kept, error: result.error };
        }),
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
  const current = state.call === call;
  return {
    value: current ? state.value : null,
    error: current ? state.error : null,
    reload,
  };
}
