/**
 * Who may call each route: the one table. The guard (guard.ts) looks up the matched route here
 * before any handler runs; a route missing from the table answers 500, so nothing is reachable by
 * accident. tests/accounts/access-walk.test.ts calls every registered route with every kind of
 * caller against this table.
 *
 * - `public`: anyone (liveness, the setup state).
 * - `setup`: anyone holding the setup token, only until the first owner exists.
 * - `sign-in`: anyone; JSON only; password and code checks are rate limited.
 * - `viewer`: any signed-in person, an API key or FOOTFALL_API_TOKEN (read-only).
 * - `self`: a signed-in person acting on their own account (password, two-step, sign-out). Viewers
 *   may; API keys may not. This is the one kind of state-changing route a viewer may call.
 * - `owner`: a signed-in owner. Everything that changes the instance.
 * - `operator`: FOOTFALL_OPERATOR_TOKEN, checked by the operator routes themselves.
 * - `metrics`: `/metrics`, open unless FOOTFALL_METRICS_TOKEN is set, then that bearer token only;
 *   checked by the route itself.
 * - `mcp`: the MCP server: an API key or FOOTFALL_API_TOKEN only (no session cookie). MCP speaks
 *   JSON-RPC over POST, so this is the one POST a read-only key may make; every tool behind it
 *   reads `/api/v1` with the same credential and changes nothing.
 */
export type Access =
  | 'public'
  | 'setup'
  | 'sign-in'
  | 'viewer'
  | 'self'
  | 'owner'
  | 'operator'
  | 'metrics'
  | 'mcp';

export const ROUTE_ACCESS = {
  'GET /livez': 'public',
  'GET /metrics': 'metrics',
  'POST /mcp': 'mcp',
  'GET /mcp': 'mcp',
  'DELETE /mcp': 'mcp',
  'GET /api/v1/health': 'viewer',

  'GET /api/v1/setup': 'public',
  'POST /api/v1/setup': 'setup',

  'POST /api/v1/session': 'sign-in',
  'POST /api/v1/session/two-step': 'sign-in',
  'GET /api/v1/session/methods': 'public',
  'GET /api/v1/session/oidc': 'sign-in',
  'GET /api/v1/session/oidc/callback': 'sign-in',
  'GET /api/v1/session': 'self',
  'DELETE /api/v1/session': 'self',

  'PUT /api/v1/account/password': 'self',
  'POST /api/v1/account/two-step/setup': 'self',
  'POST /api/v1/account/two-step/confirm': 'self',
  'DELETE /api/v1/account/two-step': 'self',
  'GET /api/v1/account/email-reports': 'self',
  'PUT /api/v1/account/email-reports/:site': 'self',
  'POST /api/v1/account/email-reports/:site/send': 'self',

  'GET /api/v1/people': 'owner',
  'POST /api/v1/people': 'owner',
  'PATCH /api/v1/people/:id': 'owner',
  'DELETE /api/v1/people/:id': 'owner',

  'GET /api/v1/api-keys': 'owner',
  'POST /api/v1/api-keys': 'owner',
  'DELETE /api/v1/api-keys/:id': 'owner',

  'GET /api/v1/sites': 'viewer',
  'POST /api/v1/sites': 'owner',
  'GET /api/v1/sites/:site': 'viewer',
  'PATCH /api/v1/sites/:site': 'owner',
  'DELETE /api/v1/sites/:site': 'owner',
  'POST /api/v1/sites/:site/proxy-key': 'owner',
  'GET /api/v1/sites/:site/shields': 'owner',

  'GET /api/v1/site-layout': 'viewer',
  'PUT /api/v1/site-layout': 'owner',
  'GET /api/v1/site-access': 'owner',
  'GET /api/v1/site-trends': 'viewer',
  'PUT /api/v1/site-access/:id': 'owner',

  'GET /api/v1/report': 'viewer',
  'GET /api/v1/sites/:site/report': 'viewer',
  'GET /api/v1/sites/:site/export.csv': 'viewer',
  'GET /api/v1/sites/:site/now': 'viewer',
  'GET /api/v1/sites/:site/events': 'viewer',
  'GET /api/v1/sites/:site/live': 'viewer',
  'GET /api/v1/sites/:site/report/heatmap': 'viewer',
  'GET /api/v1/sites/:site/report/charts': 'viewer',
  'GET /api/v1/sites/:site/moments': 'viewer',
  'GET /api/v1/sites/:site/report/retention': 'viewer',
  'GET /api/v1/sites/:site/report/breakdown': 'viewer',
  'GET /api/v1/sites/:site/status': 'viewer',
  'GET /api/v1/sites/:site/journey/:visitor': 'viewer',

  // every route that could show a signing secret is owners-only, listing included
  'GET /api/v1/sites/:site/payments/connections': 'owner',
  'POST /api/v1/sites/:site/payments/connections': 'owner',
  'PATCH /api/v1/sites/:site/payments/connections/:id': 'owner',
  'GET /api/v1/sites/:site/payments/connections/:id/secret': 'owner',
  'POST /api/v1/sites/:site/payments/connections/:id/secret': 'owner',
  'POST /api/v1/sites/:site/payments/connections/:id/sync': 'owner',
  'DELETE /api/v1/sites/:site/payments/connections/:id': 'owner',
  'POST /api/v1/data-requests/find': 'owner',
  'POST /api/v1/data-requests/erase': 'owner',
  'GET /api/v1/sites/:site/annotations': 'viewer',
  'GET /api/v1/sites/:site/segments': 'viewer',
  'POST /api/v1/sites/:site/segments': 'self',
  'PATCH /api/v1/sites/:site/segments/:id': 'self',
  'DELETE /api/v1/sites/:site/segments/:id': 'self',
  'GET /api/v1/sites/:site/goals': 'viewer',
  'GET /api/v1/sites/:site/favicon': 'viewer',
  'GET /api/v1/sites/:site/card': 'viewer',
  'GET /api/v1/sites/:site/report/vitals': 'viewer',
  'GET /api/v1/sites/:site/report/crawlers': 'viewer',
  'GET /api/v1/sites/:site/report/ai-search': 'viewer',
  'GET /api/v1/sites/:site/report/goal-props': 'viewer',
  'POST /api/v1/sites/:site/annotations': 'owner',
  'PATCH /api/v1/sites/:site/annotations/:id': 'owner',
  'DELETE /api/v1/sites/:site/annotations/:id': 'owner',
  'POST /api/v1/sites/:site/goals': 'owner',
  'PATCH /api/v1/sites/:site/goals/:id': 'owner',
  'DELETE /api/v1/sites/:site/goals/:id': 'owner',
  'GET /api/v1/sites/:site/funnels': 'viewer',
  'POST /api/v1/sites/:site/funnels': 'owner',
  'PATCH /api/v1/sites/:site/funnels/:id': 'owner',
  'DELETE /api/v1/sites/:site/funnels/:id': 'owner',
  'GET /api/v1/sites/:site/report/funnels': 'viewer',
  // alert destinations: owners only, reads included (viewers never read them: the URL may be a secret)
  'GET /api/v1/sites/:site/alerts': 'owner',
  'POST /api/v1/sites/:site/alerts': 'owner',
  'PATCH /api/v1/sites/:site/alerts/:id': 'owner',
  'DELETE /api/v1/sites/:site/alerts/:id': 'owner',
  'POST /api/v1/sites/:site/alerts/:id/test': 'owner',

  // share links: owners manage them; anyone holding a link reads what it opens (throttled)
  'GET /api/v1/sites/:site/shares': 'owner',
  'POST /api/v1/sites/:site/shares': 'owner',
  'PATCH /api/v1/sites/:site/shares/:id': 'owner',
  'DELETE /api/v1/sites/:site/shares/:id': 'owner',
  'GET /api/v1/shared/:token': 'public',

  'GET /api/v1/sites/:site/imports': 'owner',
  'POST /api/v1/sites/:site/imports': 'owner',
  'DELETE /api/v1/sites/:site/imports/:id': 'owner',

  'GET /api/v1/sites/:site/search-console': 'owner',
  'PUT /api/v1/sites/:site/search-console': 'owner',
  'DELETE /api/v1/sites/:site/search-console': 'owner',
  'GET /api/v1/sites/:site/milestones': 'viewer',
  'PUT /api/v1/sites/:site/milestones': 'owner',
  'POST /api/v1/sites/:site/milestones/seen': 'self',
  'GET /api/v1/sites/:site/milestones/:kind/:step/card': 'viewer',
  'POST /api/v1/sites/:site/milestones/:kind/:step/share': 'owner',
  'DELETE /api/v1/sites/:site/milestones/:kind/:step/share': 'owner',
  'GET /m/:token': 'public',
  'GET /m/:token/card.png': 'public',
  'GET /unsubscribe/:token': 'public',
  'POST /unsubscribe/:token': 'public',
  'POST /api/v1/shared/:token/session': 'sign-in',

  'GET /_footfall/health': 'operator',
  'GET /_footfall/usage': 'operator',
} as const satisfies Record<string, Access>;

/**
 * What a share link's credential may read: the shared site's report and what its panels read,
 * never a visitor's own path (live, now, events, journeys), the CSV, settings or other sites.
 * Annotations only when the link shows notes (and then without authors).
 */
export const SHARE_READS = new Set<string>([
  'GET /api/v1/sites/:site',
  'GET /api/v1/sites/:site/status',
  'GET /api/v1/sites/:site/report',
  'GET /api/v1/sites/:site/report/breakdown',
  'GET /api/v1/sites/:site/report/heatmap',
  'GET /api/v1/sites/:site/report/charts',
  'GET /api/v1/sites/:site/moments',
  'GET /api/v1/sites/:site/report/retention',
  'GET /api/v1/sites/:site/report/vitals',
  'GET /api/v1/sites/:site/report/crawlers',
  'GET /api/v1/sites/:site/report/ai-search',
  'GET /api/v1/sites/:site/report/goal-props',
  'GET /api/v1/sites/:site/report/funnels',
  'GET /api/v1/sites/:site/annotations',
  'GET /api/v1/sites/:site/goals',
  'GET /api/v1/sites/:site/favicon',
  'GET /api/v1/sites/:site/card',
]);

/**
 * Routes a person whose password was generated (`footfall admin`, a new person) may call before
 * choosing their own.
 */
export const BEFORE_PASSWORD_CHANGE = new Set<string>([
  'GET /api/v1/session',
  'DELETE /api/v1/session',
  'PUT /api/v1/account/password',
]);

/** The declared access of `METHOD /path/:param`, or undefined when the route is not declared. */
export function accessOf(key: string): Access | undefined {
  return (ROUTE_ACCESS as Record<string, Access>)[key];
}

/** Methods that only read. Every other method is state-changing. */
export const isReadMethod = (method: string) => method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
