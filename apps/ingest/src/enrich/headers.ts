/**
 * Request headers as the enrichment functions accept them: a Fetch `Headers` (what Hono hands
 * out as `c.req.raw.headers`) or Node's `IncomingHttpHeaders` record (lowercase keys).
 */
export type HeaderBag = Headers | Readonly<Record<string, string | string[] | undefined>>;

/**
 * One header's value, or `undefined`. `name` must be lowercase. A header repeated in a Node
 * record is joined with `, ` as the Fetch API does.
 *
 * @example
 * getHeader(new Headers({ 'X-Real-IP': '1.2.3.4' }), 'x-real-ip'); // '1.2.3.4'
 */
export function getHeader(headers: HeaderBag | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  if (Array.isArray(value)) return value.length > 0 ? value.join(', ') : undefined;
  return value;
}
