import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@footfall/config';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareInstance, publicBaseUrl, setupLink, setupToken } from './instance.ts';

const dirs: string[] = [];
const tempDataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'ff-inst-'));
  dirs.push(d);
  return join(d, 'data');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const mode = (p: string) => statSync(p).mode & 0o777;

describe('first boot', () => {
  it('creates the data directory and files for the service user only', () => {
    const dataDir = tempDataDir();
    const inst = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }));
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(inst.paths.run)).toBe(0o700);
    expect(mode(inst.paths.wal)).toBe(0o700);
    expect(mode(inst.paths.secretKey)).toBe(0o600);
    setupToken(loadConfig({ FOOTFALL_DATA_DIR: dataDir }), inst.paths, false);
    expect(mode(inst.paths.setupToken)).toBe(0o600);
  });

  it('generates secret.key once and keeps it across restarts', () => {
    const config = loadConfig({ FOOTFALL_DATA_DIR: tempDataDir() });
    const first = prepareInstance(config);
    const second = prepareInstance(config);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(second.secret).toBe(first.secret);
    expect(readFileSync(first.paths.secretKey, 'utf8').trim()).toBe(first.secret);
    expect(first.keyOnVolume).toBe(true);
  });

  it('uses FOOTFALL_SECRET and writes no key file when it is set', () => {
    const dataDir = tempDataDir();
    const inst = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir, FOOTFALL_SECRET: 'k'.repeat(32) }));
    expect(inst.secret).toBe('k'.repeat(32));
    expect(inst.keyOnVolume).toBe(false);
    expect(() => statSync(inst.paths.secretKey)).toThrow();
  });

  it('tightens a data directory that was created too open', () => {
    const dataDir = tempDataDir();
    prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }));
    chmodSync(dataDir, 0o755);
    prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }));
    expect(mode(dataDir)).toBe(0o700);
  });

  it('refuses a damaged key file instead of silently replacing it', () => {
    const dataDir = tempDataDir();
    const inst = prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }));
    writeFileSync(inst.paths.secretKey, '\n');
    expect(() => prepareInstance(loadConfig({ FOOTFALL_DATA_DIR: dataDir }))).toThrow(/damaged/);
  });
});

describe('setup token', () => {
  it('stays the same across restarts until setup is done, then opens nothing', () => {
    const config = loadConfig({ FOOTFALL_DATA_DIR: tempDataDir() });
    const { paths } = prepareInstance(config);
    const token = setupToken(config, paths, false);
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(setupToken(config, paths, false)).toBe(token);
    expect(setupToken(config, paths, true)).toBeUndefined();
    expect(() => statSync(paths.setupToken)).toThrow();
  });

  it('uses FOOTFALL_SETUP_TOKEN when set', () => {
    const config = loadConfig({ FOOTFALL_DATA_DIR: tempDataDir(), FOOTFALL_SETUP_TOKEN: 't'.repeat(24) });
    const { paths } = prepareInstance(config);
    expect(setupToken(config, paths, false)).toBe('t'.repeat(24));
  });

  it('builds the link from FOOTFALL_BASE_URL or the listen address', () => {
    expect(setupLink(loadConfig({ FOOTFALL_BASE_URL: 'https://stats.example.com' }), 'abc')).toBe(
      'https://stats.example.com/setup?token=abc',
    );
    expect(publicBaseUrl(loadConfig({}))).toBe('http://localhost:8080');
    expect(publicBaseUrl(loadConfig({ FOOTFALL_ADDR: '127.0.0.1:9000' }))).toBe('http://127.0.0.1:9000');
    expect(publicBaseUrl(loadConfig({ FOOTFALL_ADDR: '[::1]:9000' }))).toBe('http://[::1]:9000');
  });
});
