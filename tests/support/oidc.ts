/**
 * A real OpenID provider for single sign-on tests: `oidc-provider` from npm with its development
 * sign-in pages (any login and password; the login names the account), one client for Footfall,
 * and a signing key made here, so a test may also make the provider misbehave: `tamper` re-signs
 * the next ID tokens with changed claims (a wrong audience, an expiry in the past) exactly as a
 * compromised or misconfigured provider would send them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import Provider from 'oidc-provider';

export interface Account {
  email?: string;
  email_verified?: boolean;
}

export interface OidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** the accounts by login name; a test may add to it */
  accounts: Map<string, Account>;
  /** changes the claims of every ID token issued until set back to undefined */
  tamper: ((claims: JWTPayload) => JWTPayload) | undefined;
  /** with tamper: sign with a key the provider never published (same key id), as a forger would */
  forge: boolean;
  close(): Promise<void>;
}

/**
 * Signs `login` in at the provider as a browser would, without one: follows the authorization
 * address through the development login and consent pages (keeping the provider's cookies) and
 * resolves with the address the provider sends the browser back to (`redirect_uri?code&state`).
 */
export async function authorizeAt(authorizationUrl: string, login: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  let form: Record<string, string> | undefined;
  for (let hop = 0; hop < 12; hop++) {
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    form = undefined;
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.origin !== new URL(authorizationUrl).origin) return next.href;
      url = next.href;
      continue;
    }
    const page = await res.text();
    if (page.includes('name="login"')) form = { prompt: 'login', login, password: 'any' };
    else if (page.includes('value="consent"')) form = { prompt: 'consent' };
    else throw new Error(`the provider answered ${res.status} with neither a login nor a consent page`);
  }
  throw new Error('the provider never sent the browser back');
}

/** A free loopback port, for a server whose address must be known before it starts. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Starts the provider on a loopback port, with `redirectUri` as the client's only return address. */
export async function startOidcProvider(redirectUri: string): Promise<OidcProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const clientId = 'footfall';
  const clientSecret = 'a-client-secret-for-tests-only-0123456789';
  const accounts = new Map<string, Account>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    pkce: { required: () => true },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
  });
  provider.proxy = false;
  const state: OidcProvider = {
    issuer,
    clientId,
    clientSecret,
    accounts,
    tamper: undefined,
    forge: false,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && state.tamper && typeof body?.id_token === 'string') {
      const claims = state.tamper(decodeJwt(body.id_token));
      body.id_token = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key', typ: 'JWT' })
        .sign(state.forge ? (await generateKeyPair('RS256')).privateKey : privateKey);
    }
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return state;
}
