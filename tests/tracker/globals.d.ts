// The tracker's global, as pages see it in the browser tests.
declare interface Window {
  footfall: ((command: string, a?: unknown, b?: unknown) => void) & { q?: unknown[] };
}
