import { useEffect, useRef } from 'preact/hooks';

/** Keys and what they do, as the `?` help lists them. */
export const SHORTCUTS: readonly [key: string, what: string][] = [
  ['D', 'Today'],
  ['E', 'Yesterday'],
  ['R', 'Live view'],
  ['W', 'Last 7 days'],
  ['F', 'Last 28 days'],
  ['T', 'Last 30 days'],
  ['N', 'Last 91 days'],
  ['M', 'Month to date'],
  ['P', 'Last month'],
  ['Y', 'Year to date'],
  ['L', 'Last 12 months'],
  ['A', 'All time'],
  ['C', 'Custom range'],
  ['X', 'Compare with the previous period, or stop comparing'],
  ['Escape', 'Close a dialog; otherwise remove the filters'],
  ['?', 'This list'],
];

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * Single-key shortcuts while the component is shown: `keys` maps a key (`d`, `?`, `Escape`) to
 * its action. Keys typed into a field, with a modifier, or while a dialog is open do nothing here
 * (a dialog handles its own Escape).
 */
export function useShortcuts(keys: Record<string, () => void>): void {
  const current = useRef(keys);
  current.current = keys;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || typing(e.target)) return;
      if (document.querySelector('dialog[open]')) return;
      const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
      const action = current.current[key];
      if (!action) return;
      e.preventDefault();
      action();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
