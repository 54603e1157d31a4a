import { computed, signal } from '@preact/signals';

export { href } from './href.ts';

/**
 * The URL is the state: the path says which screen, the query string the view (period,
 * comparison, filters, chosen chart). Components read `route` and change it with `navigate`, so a
 * link reproduces a view and back and forward work.
 */
export const route = signal(read());

function read() {
  return { path: window.location.pathname, search: window.location.search };
}

window.addEventListener('popstate', () => {
  route.value = read();
});

/** The query string as URLSearchParams. */
export const query = computed(() => new URLSearchParams(route.value.search));

/**
 * Goes to `href` (a path with an optional query string), adding a history entry unless `replace`.
 * A new screen starts at its top with the focus on its content (as a page load would); a changed
 * view of the same screen (a filter, a period) keeps the scroll and the focus where they are.
 */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (href === `${route.value.path}${route.value.search}`) return;
  const before = route.value.path;
  window.history[options.replace ? 'replaceState' : 'pushState'](null, '', href);
  route.value = read();
  if (options.replace || route.value.path === before) return;
  window.scrollTo({ top: 0 });
  // after the new screen has rendered
  requestAnimationFrame(() => document.getElementById('main')?.focus({ preventScroll: true }));
}

/** A click handler for links inside the app: plain left clicks navigate without a page load. */
export function follow(event: MouseEvent, to: string): void {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to);
}
