import { HASH } from './config.ts';

/** Nothing may be sent or stored (consent declined or not yet given, Do Not Track, GPC). */
export let off = false;
/** Sets `off`; only main.ts decides it. */
export const setOff = (value: boolean): void => {
  off = value;
};

/** The current page as sent in `u`: the fragment is dropped unless hash routing is on. */
export const pageUrl = (): string => (HASH ? location.href : location.href.split('#')[0]!).slice(0, 2048);
