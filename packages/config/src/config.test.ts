import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { describeConfig } from './describe.ts';
import { ConfigError } from './errors.ts';

const problemsOf = (env: Record<string, string>, readFile?: (p: string) => string): string[] => {
  try {
    loadConfig(env, readFile ? { readFile } : {});
  } catch (e) {
    if (e instanceof ConfigError) return [...e.problems];
    throw e;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig', () => {
  it('boots with no variables at all, on the embedded defaults', () => {
    const c = loadConfig({});
    expect(c.addr).toEqual({ host: undefined, port: 8080 });
    expect(c.dataDir).toMatch(/\/data$/);
    expect(c.trustProxy).toEqual({ mode: 'auto' });
    expect(c.geo).toBe('country');
    expect(c.updateCheck).toBeUndefined();
    expect(c.engineThreads).toBe(2);
    expect(c.engineMemory).toBe('256MB');
    expect(c.drainSeconds).toBe(25);
    expect(c.logLevel).toBe('info');
    expect(c.backupKeepDays).toBe(30);
    expect(c.sites).toEqual([]);
    expect(c.secret ?? c.apiToken ?? c.operatorToken ?? c.setupToken ?? c.metricsToken).toBeUndefined();
    expect(c.unsafe).toEqual({
      noRateLimit: false,
      anyHost: false,
      paymentApis: {},
      geoUrl: undefined,
      googleApi: undefined,
      outboundAllow: [],
      siteOrigin: undefined,
      alertSeconds: 60,
      migrationPauseMs: 0,
    });
    expect(c.diskAlertDays).toBe(14);
    expect(c.engine).toBe('duckdb');
    expect(c.clickhouse).toBeUndefined();
  });

  it('points the ClickHouse engine at a server and database, and needs the server', () => {
    const c = loadConfig({
      FOOTFALL_ENGINE: 'clickhouse',
      FOOTFALL_CLICKHOUSE_URL: 'https://ff:p%40ss@ch.example.com:8443/',
      FOOTFALL_CLICKHOUSE_DATABASE: 'analytics_1',
    });
    expect(c.engine).toBe('clickhouse');
    expect(c.clickhouse).toEqual({
      url: 'https://ff:p%40ss@ch.example.com:8443',
      database: 'analytics_1',
      cluster: undefined,
    });
    expect(
      loadConfig({ FOOTFALL_ENGINE: 'clickhouse', FOOTFALL_CLICKHOUSE_URL: 'http://h:8123' }).clickhouse
        ?.database,
    ).toBe('footfall');
    expect(problemsOf({ FOOTFALL_ENGINE: 'clickhouse' })).toEqual([
      'FOOTFALL_CLICKHOUSE_URL: must be set when FOOTFALL_ENGINE is clickhouse (http://user:password@host:8123)',
    ]);
    expect(problemsOf({ FOOTFALL_ENGINE: 'postgres' })[0]).toMatch(/^FOOTFALL_ENGINE: /);
    const bad = problemsOf({
      FOOTFALL_ENGINE: 'clickhouse',
      FOOTFALL_CLICKHOUSE_URL: 'http://u:secretpw@h:8123/footfall',
      FOOTFALL_CLICKHOUSE_DATABASE: 'drop table',
    });
    expect(bad).toEqual([
      'FOOTFALL_CLICKHOUSE_URL: must be the server address only, with no path or query (set the database with FOOTFALL_CLICKHOUSE_DATABASE)',
      'FOOTFALL_CLICKHOUSE_DATABASE: must be a name of letters, digits and underscores (at most 64), not starting with a digit',
    ]);
    expect(bad.join('\n')).not.toContain('secretpw');
  });

  it('sets up single sign-on from the OIDC variables, and names each missing companion', () => {
    const oidc = {
      FOOTFALL_BASE_URL: 'https://stats.example.com',
      FOOTFALL_OIDC_ISSUER: 'https://id.example.com/realms/acme/',
      FOOTFALL_OIDC_CLIENT_ID: 'footfall',
    };
    expect(loadConfig({}).oidc).toBeUndefined();
    expect(loadConfig(oidc).oidc).toEqual({
      issuer: 'https://id.example.com/realms/acme',
      clientId: 'footfall',
      clientSecret: undefined,
      name: 'single sign-on',
      defaultRole: undefined,
      defaultSites: 'all',
      ssoOnly: false,
      breakGlass: undefined,
    });
    const full = loadConfig({
      ...oidc,
      FOOTFALL_OIDC_CLIENT_SECRET: 'client-secret',
      FOOTFALL_OIDC_NAME: 'Acme ID',
      FOOTFALL_OIDC_DEFAULT_ROLE: 'viewer',
      FOOTFALL_OIDC_DEFAULT_SITES: 'shop.example.com, k3vq8m2xpa',
      FOOTFALL_OIDC_SSO_ONLY: 'on',
      FOOTFALL_OIDC_BREAK_GLASS: 'Owner@Example.com',
    }).oidc;
    expect(full).toMatchObject({
      clientSecret: 'client-secret',
      name: 'Acme ID',
      defaultRole: 'viewer',
      defaultSites: ['shop.example.com', 'k3vq8m2xpa'],
      ssoOnly: true,
      breakGlass: 'owner@example.com',
    });
    // http only on this machine (a provider in a test)
    expect(loadConfig({ ...oidc, FOOTFALL_OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer).toBe(
      'http://127.0.0.1:9000',
    );
    expect(problemsOf({ ...oidc, FOOTFALL_OIDC_ISSUER: 'http://id.example.com' })).toEqual([
      'FOOTFALL_OIDC_ISSUER: must be an https:// URL (http:// only for localhost)',
    ]);
    expect(problemsOf({ FOOTFALL_OIDC_ISSUER: 'https://id.example.com' })).toEqual([
      'FOOTFALL_OIDC_CLIENT_ID: must be set with FOOTFALL_OIDC_ISSUER (the client id the provider gave Footfall)',
      'FOOTFALL_BASE_URL: must be set with FOOTFALL_OIDC_ISSUER (the provider sends people back to <base URL>/api/v1/session/oidc/callback)',
    ]);
    expect(problemsOf({ ...oidc, FOOTFALL_OIDC_SSO_ONLY: 'on' })).toEqual([
      'FOOTFALL_OIDC_BREAK_GLASS: must be set with FOOTFALL_OIDC_SSO_ONLY (the owner who may still sign in with a password when the provider is down)',
    ]);
    expect(problemsOf({ FOOTFALL_OIDC_DEFAULT_ROLE: 'viewer', FOOTFALL_OIDC_CLIENT_SECRET: 'x' })).toEqual([
      'FOOTFALL_OIDC_CLIENT_SECRET: needs FOOTFALL_OIDC_ISSUER',
      'FOOTFALL_OIDC_DEFAULT_ROLE: needs FOOTFALL_OIDC_ISSUER',
    ]);
    expect(problemsOf({ ...oidc, FOOTFALL_OIDC_DEFAULT_SITES: 'shop example' })).toEqual([
      'FOOTFALL_OIDC_DEFAULT_SITES: must be all, none, or site ids or domains: "shop example" is neither',
    ]);
    const printed = describeConfig(loadConfig({ ...oidc, FOOTFALL_OIDC_CLIENT_SECRET: 'oidcsecret' })).join(
      '\n',
    );
    expect(printed).not.toContain('oidcsecret');
    expect(printed).toContain('FOOTFALL_OIDC_CLIENT_SECRET=********');
  });

  it('listens on :$PORT when PORT is set and FOOTFALL_ADDR is not', () => {
    expect(loadConfig({ PORT: '3000' }).addr).toEqual({ host: undefined, port: 3000 });
    expect(loadConfig({ PORT: '3000', FOOTFALL_ADDR: '127.0.0.1:9000' }).addr).toEqual({
      host: '127.0.0.1',
      port: 9000,
    });
    expect(problemsOf({ PORT: 'eighty' })[0]).toMatch(/^PORT: /);
  });

  it('reads every listen address form', () => {
    expect(loadConfig({ FOOTFALL_ADDR: '[::1]:8081' }).addr).toEqual({ host: '::1', port: 8081 });
    expect(loadConfig({ FOOTFALL_ADDR: '0.0.0.0:80' }).addr).toEqual({ host: '0.0.0.0', port: 80 });
    expect(problemsOf({ FOOTFALL_ADDR: '8080' })[0]).toMatch(/^FOOTFALL_ADDR: /);
    expect(problemsOf({ FOOTFALL_ADDR: ':70000' })[0]).toMatch(/^FOOTFALL_ADDR: port/);
  });

  it('checks for updates only against a release list the operator names', () => {
    expect(loadConfig({}).updateCheck).toBeUndefined();
    expect(loadConfig({ FOOTFALL_UPDATE_CHECK: 'off' }).updateCheck).toBeUndefined();
    expect(
      loadConfig({ FOOTFALL_UPDATE_CHECK: 'https://updates.example.org/releases.json' }).updateCheck,
    ).toBe('https://updates.example.org/releases.json');
    expect(problemsOf({ FOOTFALL_UPDATE_CHECK: 'on' })[0]).toMatch(
      /^FOOTFALL_UPDATE_CHECK: must be off, or the https/,
    );
    expect(problemsOf({ FOOTFALL_UPDATE_CHECK: 'http://updates.example.org/r.json' })[0]).toMatch(
      /https:\/\//,
    );
    expect(problemsOf({ FOOTFALL_UPDATE_CHECK: 'https://u:p@updates.example.org/r.json' })[0]).toMatch(
      /credentials/,
    );
  });

  it('keeps every visit unless a retention of 30 days or more is set', () => {
    expect(loadConfig({}).retentionDays).toBeUndefined();
    expect(loadConfig({ FOOTFALL_RETENTION_DAYS: '' }).retentionDays).toBeUndefined();
    expect(loadConfig({ FOOTFALL_RETENTION_DAYS: '395' }).retentionDays).toBe(395);
    for (const bad of ['7', '36501', '90d', '-1']) {
      expect(problemsOf({ FOOTFALL_RETENTION_DAYS: bad })[0]).toMatch(/^FOOTFALL_RETENTION_DAYS: /);
    }
  });

  it('sends alert e-mail with FOOTFALL_SMTP_URL alone, from a documented default sender', () => {
    const from = (env: Record<string, string>) => loadConfig(env).mailFrom;
    expect(from({})).toBeUndefined();
    // the SMTP user when it is an address, else footfall@ the base URL's host, else the server's
    expect(from({ FOOTFALL_SMTP_URL: 'smtp://me%40x.com:pw@mail.example.com' })).toBe('Footfall <me@x.com>');
    expect(
      from({
        FOOTFALL_SMTP_URL: 'smtp://apikey:pw@mail.example.com',
        FOOTFALL_BASE_URL: 'https://stats.example.org',
      }),
    ).toBe('Footfall <footfall@stats.example.org>');
    expect(from({ FOOTFALL_SMTP_URL: 'smtp://mail.example.com' })).toBe(
      'Footfall <footfall@mail.example.com>',
    );
    expect(from({ FOOTFALL_SMTP_URL: 'smtp://mail.example.com', FOOTFALL_MAIL_FROM: 'a@b.example' })).toBe(
      'a@b.example',
    );
  });

  it('parses every variable into the typed object', () => {
    const c = loadConfig({
      FOOTFALL_DATA_DIR: '/srv/footfall',
      FOOTFALL_BASE_URL: 'https://stats.example.com/',
      FOOTFALL_SECRET: 's'.repeat(32),
      FOOTFALL_SMTP_URL: 'smtps://me%40x.com:p%40ss@mail.example.com',
      FOOTFALL_MAIL_FROM: 'Footfall <alerts@example.com>',
      FOOTFALL_BACKUP_S3: 'https://AK:SK@s3.example.com/bucket/nightly/footfall?region=eu-west-1',
      FOOTFALL_BACKUP_KEEP_DAYS: '7',
      FOOTFALL_OPERATOR_TOKEN: 'o'.repeat(20),
      FOOTFALL_SETUP_TOKEN: 't'.repeat(20),
      FOOTFALL_TRUST_PROXY: 'header:X-Real-IP',
      FOOTFALL_GEO: 'city',
      FOOTFALL_GEO_DIR: '/geo',
      FOOTFALL_UPDATE_CHECK: 'off',
      FOOTFALL_ENGINE_THREADS: '4',
      FOOTFALL_ENGINE_MEMORY: '1gb',
      FOOTFALL_DRAIN_SECONDS: '5',
      FOOTFALL_LOG_LEVEL: 'debug',
      FOOTFALL_SITES: 'https://www.Example.com/pricing, blog.example.org,example.com',
      FOOTFALL_API_TOKEN: 'a'.repeat(24),
      FOOTFALL_METRICS_TOKEN: 'm'.repeat(24),
      FOOTFALL_UNSAFE_NO_RATE_LIMIT: 'on',
    });
    expect(c.dataDir).toBe('/srv/footfall');
    expect(c.baseUrl).toBe('https://stats.example.com');
    expect(c.smtp).toEqual({
      secure: true,
      host: 'mail.example.com',
      port: 465,
      user: 'me@x.com',
      password: 'p@ss',
    });
    expect(c.mailFrom).toBe('Footfall <alerts@example.com>');
    expect(c.backupS3).toEqual({
      endpoint: 'https://s3.example.com',
      accessKeyId: 'AK',
      secretAccessKey: 'SK',
      bucket: 'bucket',
      prefix: 'nightly/footfall',
      region: 'eu-west-1',
    });
    expect(c.backupKeepDays).toBe(7);
    expect(c.trustProxy).toEqual({ mode: 'header', header: 'x-real-ip' });
    expect(c.geo).toBe('city');
    expect(c.geoDir).toBe('/geo');
    expect(c.updateCheck).toBeUndefined();
    expect(c.engineThreads).toBe(4);
    expect(c.engineMemory).toBe('1GB');
    expect(c.drainSeconds).toBe(5);
    expect(c.logLevel).toBe('debug');
    expect(c.sites).toEqual(['example.com', 'blog.example.org']);
    expect(c.apiToken).toBe('a'.repeat(24));
    expect(c.metricsToken).toBe('m'.repeat(24));
    expect(c.unsafe.noRateLimit).toBe(true);
  });

  it('reads the payment providers a test points at local servers, and refuses an unknown one', () => {
    const c = loadConfig({
      FOOTFALL_UNSAFE_PAYMENT_APIS: ' stripe=http://[::1]:9001/ ',
    });
    expect(c.unsafe.paymentApis).toEqual({ stripe: 'http://[::1]:9001' });
    expect(problemsOf({ FOOTFALL_UNSAFE_PAYMENT_APIS: 'paypal=http://127.0.0.1:1' }).join()).toContain(
      'FOOTFALL_UNSAFE_PAYMENT_APIS: "paypal=http://127.0.0.1:1": the provider must be one of',
    );
  });

  it('names each bad variable and what is wrong, all at once', () => {
    const problems = problemsOf({
      FOOTFALL_TRUST_PROXY: 'leftmost',
      FOOTFALL_GEO: 'planet',
      FOOTFALL_ENGINE_THREADS: '0',
      FOOTFALL_ENGINE_MEMORY: 'lots',
      FOOTFALL_LOG_LEVEL: 'trace',
      FOOTFALL_SMTP_URL: 'http://mail',
      FOOTFALL_BASE_URL: 'ftp://x',
      FOOTFALL_SITES: 'not a domain',
      FOOTFALL_UPDATE_CHECK: 'maybe',
      FOOTFALL_DRAIN_SECONDS: '-1',
      FOOTFALL_BACKUP_S3: 'https://s3.example.com/bucket',
      FOOTFALL_MAIL_FROM: 'nobody',
    });
    const names = problems.map((p) => p.split(':')[0]).sort();
    expect(names).toEqual(
      [
        'FOOTFALL_BACKUP_S3',
        'FOOTFALL_BASE_URL',
        'FOOTFALL_DRAIN_SECONDS',
        'FOOTFALL_ENGINE_MEMORY',
        'FOOTFALL_ENGINE_THREADS',
        'FOOTFALL_GEO',
        'FOOTFALL_LOG_LEVEL',
        'FOOTFALL_MAIL_FROM',
        'FOOTFALL_SITES',
        'FOOTFALL_SMTP_URL',
        'FOOTFALL_TRUST_PROXY',
        'FOOTFALL_UPDATE_CHECK',
      ].sort(),
    );
  });

  it('never quotes a secret value in an error', () => {
    const secret = 'short secret';
    const problems = problemsOf({
      FOOTFALL_SECRET: secret,
      FOOTFALL_API_TOKEN: 'tiny',
      FOOTFALL_BACKUP_S3: 'nope',
    });
    const text = problems.join('\n');
    expect(text).toContain('FOOTFALL_SECRET');
    expect(text).toContain('FOOTFALL_API_TOKEN');
    expect(text).not.toContain(secret);
    expect(text).not.toContain('tiny');
    expect(text).not.toContain('nope');
  });

  it('reads the _FILE variant of each secret and strips one trailing newline', () => {
    const files: Record<string, string> = {
      '/run/s/secret': `${'x'.repeat(32)}\n`,
      '/run/s/api': 'a'.repeat(20),
      '/run/s/setup': 'b'.repeat(20),
      '/run/s/s3': 'https://K:S@h.example.com/b',
      '/run/s/op': 'c'.repeat(20),
      '/run/s/ch': 'http://ff:chpass@127.0.0.1:8123\n',
    };
    const c = loadConfig(
      {
        FOOTFALL_SECRET_FILE: '/run/s/secret',
        FOOTFALL_API_TOKEN_FILE: '/run/s/api',
        FOOTFALL_SETUP_TOKEN_FILE: '/run/s/setup',
        FOOTFALL_BACKUP_S3_FILE: '/run/s/s3',
        FOOTFALL_OPERATOR_TOKEN_FILE: '/run/s/op',
        FOOTFALL_ENGINE: 'clickhouse',
        FOOTFALL_CLICKHOUSE_URL_FILE: '/run/s/ch',
      },
      {
        readFile: (p) => {
          const f = files[p];
          if (f === undefined) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
          return f;
        },
      },
    );
    expect(c.secret).toBe('x'.repeat(32));
    expect(c.apiToken).toBe('a'.repeat(20));
    expect(c.setupToken).toBe('b'.repeat(20));
    expect(c.backupS3?.bucket).toBe('b');
    expect(c.operatorToken).toBe('c'.repeat(20));
    expect(c.clickhouse?.url).toBe('http://ff:chpass@127.0.0.1:8123');
  });

  it('stops on a _FILE that cannot be read, naming the variable and the reason', () => {
    const problems = problemsOf({ FOOTFALL_API_TOKEN_FILE: '/nonexistent/token' }, () => {
      throw Object.assign(new Error('nope'), { code: 'ENOENT' });
    });
    expect(problems).toEqual(['FOOTFALL_API_TOKEN_FILE: cannot read /nonexistent/token (ENOENT)']);
  });

  it('validates a value read from a file like a direct one, without quoting it', () => {
    const problems = problemsOf({ FOOTFALL_OPERATOR_TOKEN_FILE: '/f' }, () => 'weak');
    expect(problems).toEqual(['FOOTFALL_OPERATOR_TOKEN: must be at least 16 characters']);
  });

  it('refuses a variable set both directly and as a file', () => {
    const problems = problemsOf({ FOOTFALL_SECRET: 'x'.repeat(20), FOOTFALL_SECRET_FILE: '/f' }, () =>
      'y'.repeat(20),
    );
    expect(problems[0]).toMatch(/^FOOTFALL_SECRET_FILE: cannot be set together with FOOTFALL_SECRET/);
  });

  it('takes the public address from a hosting platform when FOOTFALL_BASE_URL is unset', () => {
    expect(loadConfig({ RAILWAY_PUBLIC_DOMAIN: 'ff.up.railway.app' }).baseUrl).toBe(
      'https://ff.up.railway.app',
    );
    expect(loadConfig({ FLY_APP_NAME: 'ff' }).platform).toBe('fly');
    expect(loadConfig({ FLY_APP_NAME: 'ff', FOOTFALL_BASE_URL: 'https://a.example' }).baseUrl).toBe(
      'https://a.example',
    );
  });

  it('uses the container default data directory when given one', () => {
    expect(loadConfig({}, { defaultDataDir: '/data' }).dataDir).toBe('/data');
  });
});

describe('describeConfig', () => {
  it('prints every variable with secrets masked', () => {
    const secrets = [
      's'.repeat(32),
      'o'.repeat(20),
      'a'.repeat(20),
      'm'.repeat(20),
      'S3SECRETKEY',
      'smtppass',
    ];
    const lines = describeConfig(
      loadConfig({
        FOOTFALL_SECRET: secrets[0],
        FOOTFALL_OPERATOR_TOKEN: secrets[1],
        FOOTFALL_API_TOKEN: secrets[2],
        FOOTFALL_METRICS_TOKEN: secrets[3],
        FOOTFALL_BACKUP_S3: 'https://AK:S3SECRETKEY@s3.example.com/bucket',
        FOOTFALL_SMTP_URL: 'smtp://me:smtppass@mail.example.com',
        FOOTFALL_ENGINE: 'clickhouse',
        FOOTFALL_CLICKHOUSE_URL: 'http://ff:chsecret@ch.example.com:8123',
      }),
    );
    secrets.push('chsecret');
    const text = lines.join('\n');
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).toContain('FOOTFALL_SECRET=********');
    expect(text).toContain('FOOTFALL_SMTP_URL=smtp://********@mail.example.com:587');
    expect(text).toContain('FOOTFALL_CLICKHOUSE_URL=http://ff:********@ch.example.com:8123');
    expect(text).toContain('FOOTFALL_CLICKHOUSE_CLUSTER=(not set) (not yet used)');
    expect(lines.filter((l) => l.startsWith('FOOTFALL_')).length).toBeGreaterThanOrEqual(21);
  });
});
