/**
 * undici, for the callers that load it on their first call out (`loadUndici`): most processes
 * never make one, and idle they would hold it all the same. A module of its own, imported
 * statically here, so the bundle's CommonJS interop gives named exports (a bare `import('undici')`
 * in the built bundle answers only `default`).
 */
export { Agent, fetch, request } from 'undici';
