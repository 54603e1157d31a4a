import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type AccountsApp, accountsApp } from '../accounts/harness.ts';

const apps: AccountsApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.cleanup();
});

async function app(env: Record<string, string>) {
  const h = await accountsApp({ env });
  apps.push(h);
  h.clock.advance(5000);
  return h.app;
}

const TOKEN = 'operator-token-0123456789';

describe('operator endpoints', () => {
  it('do not exist while FOOTFALL_OPERATOR_TOKEN is unset', async () => {
    const a = await app({});
    for (const path of ['/_footfall/health', '/_footfall/usage']) {
      const res = await a.request(path, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'not_found' });
    }
  });

  it('need the token as bearer: 401 without it or with a wrong one', async () => {
    const a = await app({ FOOTFALL_OPERATOR_TOKEN: TOKEN });
    for (const path of ['/_footfall/health', '/_footfall/usage']) {
      const none = await a.request(path);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const wrong = await a.request(path, { headers: { authorization: `Bearer ${TOKEN}x` } });
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toMatchObject({ code: 'unauthorized' });
    }
  });

  it('answer with the token, carrying version, uptime and key_on_volume', async () => {
    const a = await app({ FOOTFALL_OPERATOR_TOKEN: TOKEN });
    const res = await a.request('/_footfall/health', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('server-timing')).toMatch(/dur=/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.version).toBe(readFileSync(new URL('../../VERSION', import.meta.url), 'utf8').trim());
    expect(body.uptime_seconds).toBeGreaterThanOrEqual(5);
    expect(body.key_on_volume).toBe(true);
    expect((body.memory as { kind: string }).kind).toBe('rss');
    expect(body.writer).toEqual({ lag_events: 0, stuck_streams: [], unreadable_records: 0, failing: null });
    const usage = await a.request('/_footfall/usage', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(usage.status).toBe(200);
    expect((await usage.json()) as object).toHaveProperty('disk.free_bytes');
  });

  it('report key_on_volume false when FOOTFALL_SECRET is set', async () => {
    const a = await app({ FOOTFALL_OPERATOR_TOKEN: TOKEN, FOOTFALL_SECRET: 'k'.repeat(32) });
    const res = await a.request('/_footfall/health', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await res.json()) as { key_on_volume: boolean }).key_on_volume).toBe(false);
  });
});
