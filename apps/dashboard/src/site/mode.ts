import { session } from '../session.ts';

export type Mode = 'live' | 'report';
const key = () => `footfall.mode.${session.value?.person.id ?? ''}`;

/** The view a person last chose for a site with data, kept in this browser for that person. */
export function chosenMode(): Mode {
  return localStorage.getItem(key()) === 'live' ? 'live' : 'report';
}

export function chooseMode(mode: Mode): void {
  localStorage.setItem(key(), mode);
}
