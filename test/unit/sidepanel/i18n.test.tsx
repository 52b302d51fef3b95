// @vitest-environment happy-dom
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import './helpers/dom-shims';
import en from '../../../_locales/en/messages.json';
import zh from '../../../_locales/zh_CN/messages.json';
import {
  i18nStore,
  installBundles,
  loadLocale,
  substitute,
  t,
  type Bundle,
} from '../../../sidepanel/i18n';
import { settings, snapshot, user } from './helpers/fixtures';
import { mountPanel } from './helpers/mount';

const ROOT = join(__dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.(ts|tsx)$/.test(name) ? [p] : [];
  });
}

const placeholders = (s: string) =>
  [...s.matchAll(/\$([1-9])/g)]
    .map((m) => m[1])
    .sort()
    .join(',');

describe('locales', () => {
  it('English and Chinese have identical key sets', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
  });

  it('keeps the manifest keys', () => {
    for (const key of ['extName', 'extDescription', 'actionTitle']) {
      expect(en).toHaveProperty(key);
      expect(zh).toHaveProperty(key);
    }
  });

  it('every message is non-empty, uses the same substitutions in both languages, and has a Chrome-valid key', () => {
    for (const [key, value] of Object.entries(en as Bundle)) {
      const other = (zh as Bundle)[key];
      expect(key).toMatch(/^[A-Za-z0-9_]+$/);
      expect(value.message.trim(), key).not.toBe('');
      expect(other.message.trim(), key).not.toBe('');
      expect(placeholders(other.message), key).toBe(placeholders(value.message));
    }
  });

  it('every key the panel uses exists', () => {
    const used = new Set<string>();
    for (const file of sourceFiles(join(ROOT, 'sidepanel'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([A-Za-z0-9_]+)'/g))
        used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(100);
    const missing = [...used].filter((k) => !(k in en));
    expect(missing).toEqual([]);
  });
});

describe('t()', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('substitutes $1..$9 like chrome.i18n', () => {
    expect(substitute('$1 of $2 ($$)', [1, 3])).toBe('1 of 3 ($)');
    installBundles('en', en as Bundle);
    expect(t('todoProgress', 2, 5)).toBe('2 of 5 done');
    installBundles('zh-CN', zh as Bundle, en as Bundle);
    expect(t('todoProgress', 2, 5)).toBe('已完成 2/5');
  });

  it('falls back to English, then to the key', () => {
    installBundles('zh-CN', { send: { message: '发送' } }, en as Bundle);
    expect(t('send')).toBe('发送');
    expect(t('stop')).toBe('Stop');
    installBundles('en', {}, {});
    expect(t('stop')).toBe('stop');
  });

  it('loads the chosen locale file with fetch', async () => {
    const fetched: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      fetched.push(url);
      const body = url.includes('zh_CN') ? zh : en;
      return new Response(JSON.stringify(body), { status: 200 });
    });
    i18nStore.set({ locale: 'en', active: null, english: null });
    await loadLocale('zh-CN');
    expect(fetched.some((u) => u.endsWith('_locales/zh_CN/messages.json'))).toBe(true);
    expect(t('send')).toBe('发送');
    expect(document.documentElement.lang).toBe('zh-CN');
    await loadLocale('en');
    expect(t('send')).toBe('Send');
  });

  it('the last choice wins over an earlier one still loading', async () => {
    // After a reload the engine's settings say Chinese; the user picks English before the
    // Chinese file has arrived. When it arrives it must not switch the panel back.
    let releaseZh!: () => void;
    const zhArrives = new Promise<void>((r) => (releaseZh = r));
    vi.stubGlobal('fetch', async (url: string) => {
      if (url.includes('zh_CN')) await zhArrives;
      return new Response(JSON.stringify(url.includes('zh_CN') ? zh : en), { status: 200 });
    });
    installBundles('en', en as Bundle, en as Bundle);
    const chinese = loadLocale('zh-CN');
    await loadLocale('en');
    releaseZh();
    await chinese;
    expect(t('send')).toBe('Send');
    expect(document.documentElement.lang).toBe('en');
  });

  it('re-renders the panel in the new language', async () => {
    const m = await mountPanel({
      snapshots: [snapshot('t1', [user('u1', 'x')])],
      open: 't1',
      settings: settings(),
    });
    expect(m.container.querySelector('.send-btn')?.getAttribute('aria-label')).toBe('Send');
    installBundles('zh-CN', zh as Bundle, en as Bundle);
    await m.flush();
    expect(m.container.querySelector('.send-btn')?.getAttribute('aria-label')).toBe('发送');
    m.unmount();
  });
});
