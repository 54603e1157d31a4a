import { session } from '../session.ts';

export type Mode = 'live' | 'report';
const key = () => `footfall.mode.${session.value?.person.id ?? ''}`;

/** The view a person last chose for a site with data, kept in this browser for that person. */
export function chosenMode(): Mode {
  return localStorage.getItem(key()) === 'live' ? 'live' : 'report';
}

export function chooseMode(mode: Mode): void {
  localStorage.setItem(key(), mode);
  // the server reads it to know whether `/sites/<id>` will ask for a report (it then names the
  // report in the page's Link header: apps/query/src/page-preloads.ts)
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser the dashboard supports
  document.cookie = `footfall_mode=${mode}; path=/; max-age=31536000; samesite=lax`;
}
