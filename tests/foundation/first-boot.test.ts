import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runFootfall, startFootfall, tempDir } from '../support/footfall.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const LINK = /(http:\/\/\S+\/setup\?token=([A-Za-z0-9_-]+))/;

describe('first boot', () => {
  it('creates a private data directory, a key and a setup link that stays the same across restarts', async () => {
    const root = tempDir();
    dirs.push(root);
    const dataDir = join(root, 'data');
    const one = await startFootfall({ FOOTFALL_DATA_DIR: dataDir });
    const [, link1] = await one.waitForOutput(LINK);
    expect(link1).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/setup\?token=/);
    await one.stop();

    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(dataDir)) {
      const st = statSync(join(dataDir, name));
      if (st.isDirectory()) expect(st.mode & 0o777, name).toBe(0o700);
      else if (st.isFile()) expect(st.mode & 0o777, name).toBe(0o600);
    }
    expect(statSync(join(dataDir, 'secret.key')).isFile()).toBe(true);

    const two = await startFootfall({ FOOTFALL_DATA_DIR: dataDir });
    const m2 = await two.waitForOutput(LINK);
    await two.stop();
    const token1 = LINK.exec(link1!)?.[2];
    expect(m2[2]).toBe(token1);
    // the link is printed once per start, by footfall start only (not by its query service)
    expect(two.output().match(new RegExp(LINK.source, 'g'))).toHaveLength(1);
  });

  it("tells a person each FOOTFALL_SITES site's id and the exact script tag", async () => {
    const ff = await startFootfall({
      FOOTFALL_SITES: 'www.example.org,https://Blog.Example.com/posts',
      FOOTFALL_BASE_URL: 'https://stats.example.com',
      FOOTFALL_API_TOKEN: 'first-boot-token-0123456789',
    });
    const tags = /(example\.org) \(site id ([a-z2-9]{10})\)\n\s+(<script .*><\/script>)/;
    const [, domain, id, tag] = await ff.waitForOutput(tags);
    expect(domain).toBe('example.org');
    expect(tag).toBe(`<script defer src="https://stats.example.com/js/${id}.js"></script>`);
    expect(ff.output()).toMatch(/blog\.example\.com \(site id [a-z2-9]{10}\)/);
    // the id printed is the site's id in the API
    const sites = (await (
      await fetch(`${ff.url}/api/v1/sites`, {
        headers: { authorization: 'Bearer first-boot-token-0123456789' },
      })
    ).json()) as { sites: { id: string; domain: string }[] };
    expect(sites.sites.find((s) => s.domain === 'example.org')?.id).toBe(id);
    await ff.stop();
  });

  it('uses FOOTFALL_BASE_URL and FOOTFALL_SETUP_TOKEN in the link', async () => {
    const ff = await startFootfall({
      FOOTFALL_BASE_URL: 'https://stats.example.com',
      FOOTFALL_SETUP_TOKEN: 's'.repeat(24),
    });
    const m = await ff.waitForOutput(/https:\/\/stats\.example\.com\/setup\?token=(\S+)/);
    expect(m[1]).toBe('s'.repeat(24));
    await ff.stop();
  });

  it('does not start with a bad variable and names it without printing the secret', async () => {
    const secret = 'tooShort';
    const ff = runFootfall(['start'], { FOOTFALL_API_TOKEN: secret, FOOTFALL_GEO: 'mars' });
    const { code } = await ff.exited;
    expect(code).toBe(2);
    expect(ff.output()).toMatch(/FOOTFALL_API_TOKEN: must be at least 16 characters/);
    expect(ff.output()).toMatch(/FOOTFALL_GEO: must be one of country, city, off/);
    expect(ff.output()).not.toContain(secret);
    await ff.stop();
  });

  it('does not start when a named secret file cannot be read', async () => {
    const ff = runFootfall(['start'], { FOOTFALL_SECRET_FILE: '/nonexistent/footfall-secret' });
    const { code } = await ff.exited;
    expect(code).toBe(2);
    expect(ff.output()).toContain('FOOTFALL_SECRET_FILE: cannot read /nonexistent/footfall-secret (ENOENT)');
    await ff.stop();
  });
});

describe('footfall config', () => {
  it('prints the effective configuration with secrets masked', async () => {
    const token = 'op-token-that-is-secret';
    const ff = runFootfall(['config'], {
      FOOTFALL_OPERATOR_TOKEN: token,
      FOOTFALL_ENGINE_THREADS: '3',
      PORT: '9999',
    });
    const { code } = await ff.exited;
    expect(code).toBe(0);
    expect(ff.output()).toContain('FOOTFALL_OPERATOR_TOKEN=********');
    expect(ff.output()).toContain('FOOTFALL_ENGINE_THREADS=3');
    expect(ff.output()).not.toContain(token);
    await ff.stop();
  });
});
