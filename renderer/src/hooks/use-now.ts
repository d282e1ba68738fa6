/** Epoch ms, re-rendered every `periodMs` (ages and countdowns). Default 1000. */
import { useEffect, useState } from 'react';

export function useNow(periodMs = 1_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), periodMs);
    return () => clearInterval(timer);
  }, [periodMs]);
  return now;
}
