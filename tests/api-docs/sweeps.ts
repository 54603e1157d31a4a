import type { Agent } from '../accounts/harness.ts';
import { PASSWORD, SETUP_TOKEN } from '../accounts/harness.ts';
import type { Operation } from './contract.ts';
import {
  type Answer,
  type CheckedContract,
  type DocumentedApp,
  OVERSIZED,
  UNKNOWN_ID,
} from './documented-app.ts';

/**
 * Data-driven sweeps over the documented operations: each sends every operation the request that
 * must be refused in a documented way (no credential, the wrong kind of caller, an unknown id, a
 * body that is not JSON, too large or malformed), so every refusal answer is held against the
 * document without a hand-written call per route.
 */

/** A body each operation accepts, so a refusal comes from what the sweep changes and nothing else. */
export const VALID_BODIES: Record<string, unknown> = {
  'POST /api/v1/setup': { token: SETUP_TOKEN, email: 'sweep@example.com', password: PASSWORD },
  'POST /api/v1/session': { email: 'nobody@example.com', password: PASSWORD },
  'POST /api/v1/session/two-step': { challenge: 'no-such-challenge', code: '123456' },
  'PUT /api/v1/account/password': { current_password: PASSWORD, new_password: 'another long password' },
  'POST /api/v1/account/two-step/setup': { password: PASSWORD },
  'POST /api/v1/account/two-step/confirm': { code: '123456' },
  'DELETE /api/v1/account/two-step': { password: PASSWORD, code: '123456' },
  'POST /api/v1/people': { email: 'sweep@example.com', role: 'viewer' },
  'PATCH /api/v1/people/{id}': { role: 'viewer' },
  'POST /api/v1/api-keys': { name: 'sweep' },
  'POST /api/v1/sites': { domain: 'sweep.example.org' },
  'PATCH /api/v1/sites/{site}': { cookieless: true },
  'PUT /api/v1/site-layout': { order: [], pins: [], groups: [] },
  'PUT /api/v1/site-access/{id}': { sites: 'all' },
};

export interface SweepIds {
  site: string;
  person: string;
  key: string;
}

/** The operation's path with its parameters filled in. */
export function fill(op: Operation, ids: SweepIds): string {
  return op.path
    .replace('{site}', ids.site)
    .replace('{id}', op.path.includes('api-keys') ? ids.key : ids.person)
    .replace('{visitor}', 'visitor-one');
}

const UNKNOWN: SweepIds = { site: UNKNOWN_ID, person: UNKNOWN_ID, key: UNKNOWN_ID };

const changing = (op: Operation) => op.method !== 'GET';
const withBody = (op: Operation) => VALID_BODIES[op.key];

export interface Callers {
  owner: Agent;
  viewer: Agent;
  /** a person whose generated password is not replaced yet */
  fresh: Agent;
  apiKey: string;
}

/** Calls `op` and collects a line for every status other than `want`. */
async function expectStatus(
  h: DocumentedApp,
  op: Operation,
  path: string,
  want: number,
  options: Parameters<DocumentedApp['call']>[2],
  wrong: string[],
): Promise<Answer> {
  const res = await h.call(op.method, path, options);
  if (res.status !== want) wrong.push(`${op.key}: want ${want}, got ${res.status} ${res.text.slice(0, 120)}`);
  return res;
}

/** 401 for every credentialed operation without a credential, and with an unknown bearer value. */
export async function sweepUnauthorized(h: DocumentedApp, ops: Operation[], ids: SweepIds) {
  const wrong: string[] = [];
  for (const op of ops.filter((o) => ['viewer', 'self', 'owner'].includes(o.access ?? ''))) {
    await expectStatus(h, op, fill(op, ids), 401, { body: withBody(op) }, wrong);
    await expectStatus(
      h,
      op,
      fill(op, ids),
      401,
      { body: withBody(op), bearer: 'ffk_not-a-key-at-all' },
      wrong,
    );
  }
  return wrong;
}

/**
 * 403 for the wrong kind of caller: a viewer on owner routes, an API key on self routes, a person
 * who must first replace a generated password on viewer routes, and a cross-site page on sign-in
 * and setup.
 */
export async function sweepForbidden(h: DocumentedApp, ops: Operation[], ids: SweepIds, who: Callers) {
  const wrong: string[] = [];
  for (const op of ops) {
    const path = fill(op, ids);
    const body = withBody(op);
    if (op.access === 'owner') await expectStatus(h, op, path, 403, { body, agent: who.viewer }, wrong);
    if (op.access === 'self') await expectStatus(h, op, path, 403, { body, bearer: who.apiKey }, wrong);
    if (op.access === 'viewer') await expectStatus(h, op, path, 403, { body, agent: who.fresh }, wrong);
    if ((op.access === 'sign-in' || op.access === 'setup') && changing(op)) {
      await expectStatus(h, op, path, 403, { body, headers: { 'sec-fetch-site': 'cross-site' } }, wrong);
    }
    if (changing(op) && (op.access === 'owner' || op.access === 'self')) {
      const noCsrf = Object.assign(Object.create(Object.getPrototypeOf(who.owner)), who.owner, {
        csrf: undefined,
      });
      await expectStatus(h, op, path, 403, { body, agent: noCsrf }, wrong);
    }
  }
  return wrong;
}

/** 404 for every operation with an id in its path, called by an owner with an id that does not exist. */
export async function sweepNotFound(h: DocumentedApp, ops: Operation[], owner: Agent) {
  const wrong: string[] = [];
  for (const op of ops.filter((o) => o.statuses.includes('404') && /\{(site|id)\}/.test(o.path))) {
    await expectStatus(h, op, fill(op, UNKNOWN), 404, { body: withBody(op), agent: owner }, wrong);
  }
  return wrong;
}

/** 415, 413 and 400 for every operation with a JSON body, past the access check. */
export async function sweepBodies(
  h: DocumentedApp,
  ops: Operation[],
  ids: SweepIds,
  owner: Agent,
  apiKey: string,
) {
  const wrong: string[] = [];
  // an upload (an import's zip) is checked by its own scenario
  const json = (o: Operation) => {
    const body = JSON.stringify(o.op.requestBody ?? {});
    return body.includes('application/json') && !body.includes('application/zip');
  };
  for (const op of ops.filter((o) => o.op.requestBody && json(o))) {
    const path = fill(op, ids);
    const agent = op.access === 'owner' || op.access === 'self' ? owner : undefined;
    // the MCP server takes an API key only; its 400s are JSON-RPC errors, which name no field
    const bearer = op.access === 'mcp' ? apiKey : undefined;
    const jsonRpc = op.access === 'mcp';
    const check = (status: number, input: Parameters<typeof expectStatus>[4]) =>
      expectStatus(h, op, path, status, { ...input, agent, bearer }, wrong);
    await check(415, { raw: { text: 'email=a', type: 'text/plain' } });
    await check(413, { raw: { text: OVERSIZED, type: 'application/json' } });
    await check(400, { raw: { text: '{"zz":', type: 'application/json' } });
    const res = await check(400, { body: { zz: 1 } });
    if (res.status === 400 && !jsonRpc && !res.json<{ field?: string }>().field)
      wrong.push(`${op.key}: a 400 without field`);
  }
  return wrong;
}

/** Problems found so far, emptied: each test asserts that its answers matched the document. */
export const takeProblems = (contract: CheckedContract) => contract.problems.splice(0);
