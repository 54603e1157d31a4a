import type { OidcSettings } from '@footfall/config';
import { randomToken, safeEqual, sha256Hex } from '@footfall/control';
import * as client from 'openid-client';

/** How long a started sign-in may take at the provider before it must be started again. */
export const SSO_PENDING_MS = 10 * 60_000;
/** Sign-ins started and not finished, kept at most (the oldest go first): /start is public. */
const MAX_PENDING = 1000;
/** Seconds a request to the provider may take (discovery, token, userinfo). */
const PROVIDER_TIMEOUT_S = 10;

/**
 * Why a single sign-on was refused, as the sign-in screen names it (`/login?sso_error=<code>`):
 * - `expired`: the sign-in was already finished, never started, or older than SSO_PENDING_MS
 *   (a replayed or forged `state`);
 * - `other_browser`: the callback came to a browser that did not start it;
 * - `provider_refused`: the provider answered with an error (the person cancelled, say);
 * - `token_refused`: the provider's answer failed a check (signature, issuer, audience, expiry,
 *   nonce, PKCE);
 * - `unverified_email` / `no_email`: the provider does not vouch for an e-mail address;
 * - `no_account`: nobody has that address and FOOTFALL_OIDC_DEFAULT_ROLE is off;
 * - `unreachable`: the provider did not answer.
 */
export type SsoRefusalCode =
  | 'expired'
  | 'other_browser'
  | 'provider_refused'
  | 'token_refused'
  | 'unverified_email'
  | 'no_email'
  | 'no_account'
  | 'unreachable';

export class SsoRefusal extends Error {
  constructor(
    readonly code: SsoRefusalCode,
    message: string,
  ) {
    super(message);
  }
}

/** What the provider vouched for at the end of a sign-in. */
export interface SsoIdentity {
  email: string;
  subject: string;
  /** the dashboard path to go back to */
  next: string;
}

interface Pending {
  verifier: string;
  nonce: string;
  bindingHash: string;
  next: string;
  startedAt: number;
}

/**
 * The relying party of FOOTFALL_OIDC_*: authorization code flow with PKCE (S256), `state` and
 * `nonce`, the ID token's signature checked against the provider's keys (non-repudiation), and its
 * issuer, audience, expiry and nonce by openid-client. A started sign-in is held in memory for
 * SSO_PENDING_MS, used once, and bound to the browser that started it by a cookie whose hash it
 * keeps; a restart forgets them (the person starts again).
 */
export class OidcRelyingParty {
  private configuration: Promise<client.Configuration> | undefined;
  private readonly pending = new Map<string, Pending>();

  constructor(
    readonly settings: OidcSettings,
    /** `<FOOTFALL_BASE_URL>/api/v1/session/oidc/callback` */
    readonly redirectUri: string,
    private readonly now: () => number,
  ) {}

  /** The provider's metadata, fetched once; a failure is not kept, so the next sign-in tries again. */
  private discover(): Promise<client.Configuration> {
    if (!this.configuration) {
      const { issuer, clientId, clientSecret } = this.settings;
      const insecure = issuer.startsWith('http:');
      this.configuration = client
        .discovery(
          new URL(issuer),
          clientId,
          clientSecret === undefined ? { token_endpoint_auth_method: 'none' } : clientSecret,
          clientSecret === undefined ? client.None() : client.ClientSecretBasic(clientSecret),
          {
            timeout: PROVIDER_TIMEOUT_S,
            execute: [client.enableNonRepudiationChecks, ...(insecure ? [client.allowInsecureRequests] : [])],
          },
        )
        .catch((e: unknown) => {
          this.configuration = undefined;
          throw providerProblem(e);
        });
    }
    return this.configuration;
  }

  /**
   * Starts a sign-in: the provider's address to send the browser to, and the value of the cookie
   * that binds the sign-in to this browser.
   */
  async start(next: string): Promise<{ url: URL; binding: string }> {
    const config = await this.discover();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const binding = randomToken(24);
    this.forgetOld();
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    this.pending.set(state, {
      verifier,
      nonce,
      bindingHash: sha256Hex(binding),
      next,
      startedAt: this.now(),
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, binding };
  }

  /**
   * Finishes a sign-in from the callback's query string: checks the state (once, in the browser
   * that started it), trades the code for tokens, verifies the ID token, and answers the verified
   * e-mail address. Throws SsoRefusal.
   */
  async finish(query: URLSearchParams, binding: string | undefined): Promise<SsoIdentity> {
    const state = query.get('state') ?? '';
    const pending = this.pending.get(state);
    this.pending.delete(state);
    if (!pending || this.now() - pending.startedAt > SSO_PENDING_MS) {
      throw new SsoRefusal('expired', 'this sign-in was already used, has expired or was never started');
    }
    if (binding === undefined || !safeEqual(sha256Hex(binding), pending.bindingHash)) {
      throw new SsoRefusal('other_browser', 'this sign-in was started in another browser');
    }
    const config = await this.discover();
    const callback = new URL(this.redirectUri);
    callback.search = query.toString();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: pending.verifier,
        expectedState: state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (e) {
      throw providerProblem(e);
    }
    const claims = tokens.claims();
    if (!claims) throw new SsoRefusal('token_refused', 'the provider sent no ID token');
    let email = claims.email;
    let verified = claims.email_verified;
    // providers that follow the core spec strictly put scope claims in userinfo, not the ID token
    if (email === undefined) {
      try {
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        email = info.email;
        verified = info.email_verified;
      } catch (e) {
        throw providerProblem(e);
      }
    }
    if (typeof email !== 'string' || email === '') {
      throw new SsoRefusal('no_email', 'the provider did not give an e-mail address (scope email)');
    }
    if (verified !== true) {
      throw new SsoRefusal('unverified_email', `the provider has not verified ${email}`);
    }
    return { email: email.trim().toLowerCase(), subject: claims.sub, next: pending.next };
  }

  private forgetOld(): void {
    const oldest = this.now() - SSO_PENDING_MS;
    for (const [state, p] of this.pending) {
      if (p.startedAt >= oldest) break;
      this.pending.delete(state);
    }
  }
}

/** An openid-client failure as a refusal: the provider's own error, a failed check, or no answer. */
function providerProblem(e: unknown): SsoRefusal {
  if (e instanceof SsoRefusal) return e;
  if (e instanceof client.AuthorizationResponseError || e instanceof client.ResponseBodyError) {
    const text = e.error_description ? `${e.error}: ${e.error_description}` : e.error;
    return new SsoRefusal('provider_refused', `the provider refused: ${text}`);
  }
  const err = e as Error & { code?: string; cause?: unknown };
  if (
    err.name === 'TimeoutError' ||
    err.name === 'AbortError' ||
    (err instanceof TypeError && /fetch failed/i.test(err.message))
  ) {
    return new SsoRefusal('unreachable', `the provider did not answer (${err.message})`);
  }
  // openid-client wraps oauth4webapi's error, whose own message names the claim at fault ("aud")
  const inner = err.cause instanceof Error ? err.cause.message : undefined;
  return new SsoRefusal(
    'token_refused',
    `the provider's answer failed a check: ${inner ?? err.message ?? String(e)}`,
  );
}
