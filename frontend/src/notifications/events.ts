import { useEffect, useRef } from 'react';
import type { Notification } from './feed';

type Listener = (notification: Notification) => void;

const listeners = new Set<Listener>();

/**
 * emitNotification tells every listener about a notification that arrived
 * live, so a page can refresh what the event changed (an application's
 * status, the user's roles) without a reload.
 */
export function emitNotification(notification: Notification): void {
  for (const listener of listeners) listener(notification);
}

/**
 * useNotificationListener calls listener for each live notification while
 * the component is mounted; the latest listener is used, so it may close
 * over fresh state without resubscribing.
 */
export function useNotificationListener(listener: Listener): void {
  const latest = useRef(listener);
  useEffect(() => {
    latest.current = listener;
  });
  useEffect(() => {
    const l: Listener = (n) => latest.current(n);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
}
