import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n/common.ts';

/** Keys and what they do, as the `?` help lists them. */
export const SHORTCUTS: readonly [key: string, what: string][] = [
  ['D', t('shortcutToday')],
  ['E', t('shortcutYesterday')],
  ['R', t('shortcutLive')],
  ['W', t('shortcutLast7')],
  ['F', t('shortcutLast28')],
  ['T', t('shortcutLast30')],
  ['N', t('shortcutLast91')],
  ['M', t('shortcutMonthToDate')],
  ['P', t('shortcutLastMonth')],
  ['Y', t('shortcutYearToDate')],
  ['L', t('shortcutLast12Months')],
  ['A', t('shortcutAllTime')],
  ['C', t('shortcutCustom')],
  ['X', t('shortcutCompare')],
  ['G', t('shortcutAllSites')],
  [t('keyEscape'), t('shortcutEscape')],
  ['?', t('shortcutHelp')],
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
