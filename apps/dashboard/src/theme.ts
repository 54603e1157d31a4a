import { signal } from '@preact/signals';

export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'footfall.theme';
const system = window.matchMedia('(prefers-color-scheme: dark)');

function stored(): ThemeChoice {
  const value = localStorage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** What the person chose: the system's scheme (the default), or light or dark. */
export const themeChoice = signal<ThemeChoice>(stored());

/** The scheme in use now; charts read it to pick their colours. */
export const theme = signal<'light' | 'dark'>('light');

function apply(): void {
  const choice = themeChoice.value;
  theme.value = choice === 'system' ? (system.matches ? 'dark' : 'light') : choice;
  document.documentElement.dataset.theme = theme.value;
}

/** Sets the scheme before the first render (no flash of the wrong one) and follows the system. */
export function startTheme(): void {
  apply();
  system.addEventListener('change', apply);
  window.addEventListener('storage', (e) => {
    if (e.key === KEY) {
      themeChoice.value = stored();
      apply();
    }
  });
}

export function chooseTheme(choice: ThemeChoice): void {
  if (choice === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, choice);
  themeChoice.value = choice;
  apply();
}

/** The colour of a CSS variable of the current scheme (for canvas drawing). */
export function cssColour(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
