import { useEffect, type RefObject } from 'react';

/**
 * useDismiss closes what is open (a menu, a panel) as menus close: on a
 * pointer press outside root and on Escape. It listens only while open.
 */
export function useDismiss(open: boolean, root: RefObject<HTMLElement | null>, close: () => void): void {
  useEffect(() => {
    if (!open) return;
    function onPointer(event: PointerEvent) {
      if (root.current && !root.current.contains(event.target as Node)) close();
    }
    function onKey(event: KeyboardEvent) {
      if (event.key === 'Escape') close();
    }
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
    // close is called, not compared: callers pass a new function each
    // render that does the same thing (set their state to closed).
  }, [open, root]);
}
