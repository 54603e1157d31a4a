import type { Parsed } from './parse-values.ts';
import { parseHttpUrl } from './parse-values.ts';

/**
 * Single sign-on's variables (FOOTFALL_OIDC_*, docs/sign-in.md): how two of them are read, what
 * they need of each other, and the settings they make.
 */

/** FOOTFALL_OIDC_*: the provider, this client at it, and who may join through it. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** undefined: a public client, PKCE alone */
  clientSecret: string | undefined;
  /** the button's words: "Sign in with {name}" */
  name: string;
  /** the role of a person the provider vouches for who has no account yet; undefined: nobody joins */
  defaultRole: 'viewer' | 'owner' | undefined;
  /** the sites such a new viewer sees */
  defaultSites: 'all' | 'none' | string[];
  /** password sign-in is off for everyone but the break-glass owner */
  ssoOnly: boolean;
  /** the owner whose password still works with ssoOnly (lower-cased e-mail) */
  breakGlass: string | undefined;
}

/** The OIDC variables as the environment schema (config.ts) parsed them. */
export interface OidcVariables {
  FOOTFALL_BASE_URL?: string | undefined;
  FOOTFALL_OIDC_ISSUER?: string | undefined;
  FOOTFALL_OIDC_CLIENT_ID?: string | undefined;
  FOOTFALL_OIDC_CLIENT_SECRET?: string | undefined;
  FOOTFALL_OIDC_NAME?: string | undefined;
  FOOTFALL_OIDC_DEFAULT_ROLE: 'off' | 'viewer' | 'owner';
  FOOTFALL_OIDC_DEFAULT_SITES: 'all' | 'none' | string[];
  FOOTFALL_OIDC_SSO_ONLY: boolean;
  FOOTFALL_OIDC_BREAK_GLASS?: string | undefined;
}

/** An OpenID provider's issuer: https, or http on this machine's loopback only (a provider in a test). */
export function parseIssuer(t: string): Parsed<string> {
  const u = parseHttpUrl(t);
  if (!u.ok) return u;
  const host = new URL(u.value).hostname;
  if (u.value.startsWith('http:') && !['localhost', '127.0.0.1', '[::1]'].includes(host))
    return { ok: false, problem: 'must be an https:// URL (http:// only for localhost)' };
  return u;
}

/** `all`, `none`, or sites (their ids or domains) separated by commas. */
export function parseSiteChoice(t: string): Parsed<'all' | 'none' | string[]> {
  const s = t.trim().toLowerCase();
  if (s === 'all' || s === 'none') return { ok: true, value: s };
  const sites = s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const bad = sites.find((x) => !/^[a-z0-9][a-z0-9.-]{0,252}$/.test(x));
  if (bad !== undefined || sites.length === 0)
    return {
      ok: false,
      problem: `must be all, none, or site ids or domains${bad ? `: "${bad}" is neither` : ''}`,
    };
  return { ok: true, value: sites };
}

/** What the OIDC variables need of each other: the issuer and client id together, a base URL, a break-glass owner. */
export function oidcProblems(
  o: OidcVariables,
  input: Record<string, string>,
  platformUrl: string | undefined,
): string[] {
  const problems: string[] = [];
  if (!o.FOOTFALL_OIDC_ISSUER) {
    for (const k of Object.keys(input).filter((n) => n.startsWith('FOOTFALL_OIDC_')))
      problems.push(`${k}: needs FOOTFALL_OIDC_ISSUER`);
    return problems;
  }
  if (!o.FOOTFALL_OIDC_CLIENT_ID)
    problems.push(
      'FOOTFALL_OIDC_CLIENT_ID: must be set with FOOTFALL_OIDC_ISSUER (the client id the provider gave Footfall)',
    );
  if (!o.FOOTFALL_BASE_URL && !platformUrl)
    problems.push(
      'FOOTFALL_BASE_URL: must be set with FOOTFALL_OIDC_ISSUER (the provider sends people back to <base URL>/api/v1/session/oidc/callback)',
    );
  if (o.FOOTFALL_OIDC_SSO_ONLY && !o.FOOTFALL_OIDC_BREAK_GLASS)
    problems.push(
      'FOOTFALL_OIDC_BREAK_GLASS: must be set with FOOTFALL_OIDC_SSO_ONLY (the owner who may still sign in with a password when the provider is down)',
    );
  return problems;
}

/** The settings of single sign-on, or undefined while it is not set up. */
export function oidcSettings(o: OidcVariables): OidcSettings | undefined {
  if (!o.FOOTFALL_OIDC_ISSUER || !o.FOOTFALL_OIDC_CLIENT_ID) return undefined;
  return {
    issuer: o.FOOTFALL_OIDC_ISSUER,
    clientId: o.FOOTFALL_OIDC_CLIENT_ID,
    clientSecret: o.FOOTFALL_OIDC_CLIENT_SECRET,
    name: o.FOOTFALL_OIDC_NAME ?? 'single sign-on',
    defaultRole: o.FOOTFALL_OIDC_DEFAULT_ROLE === 'off' ? undefined : o.FOOTFALL_OIDC_DEFAULT_ROLE,
    defaultSites: o.FOOTFALL_OIDC_DEFAULT_SITES,
    ssoOnly: o.FOOTFALL_OIDC_SSO_ONLY,
    breakGlass: o.FOOTFALL_OIDC_BREAK_GLASS?.replace(/^.*<(.+)>$/, '$1').toLowerCase(),
  };
}
