import { useEffect, useState } from 'react';

/**
 * useNow is the current time in milliseconds, updated every intervalMs:
 * for texts that tick (how long ago, a countdown).
 */
export function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}
