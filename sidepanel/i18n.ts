import { ExternalStore } from './state/external-store';

/**
 * UI strings. chrome.i18n follows the browser language and cannot switch at runtime, so the panel
 * loads `_locales/<lang>/messages.json` itself (same files, same `$1` substitutions) and falls back
 * to chrome.i18n, then to the English bundle, then to the key.
 */
export type MessageKey = keyof typeof import('../_locales/en/messages.json');
export type UiLocale = 'en' | 'zh-CN';
export type Bundle = Record<string, { message: string; description?: string }>;

interface I18nState {
  locale: UiLocale;
  active: Bundle | null;
  english: Bundle | null;
}

/** Components subscribe to this (useStore) so a language switch re-renders the panel. */
export const i18nStore = new ExternalStore<I18nState>({
  locale: 'en',
  active: null,
  english: null,
});

/** Chrome's folder name for a locale. */
export function localeDir(locale: UiLocale): string {
  return locale === 'zh-CN' ? 'zh_CN' : 'en';
}

/** The browser's language mapped onto the locales we ship. */
export function browserLocale(): UiLocale {
  let lang = '';
  try {
    lang = globalThis.chrome?.i18n?.getUILanguage?.() ?? '';
  } catch {
    /* not in an extension page */
  }
  if (!lang && typeof navigator !== 'undefined') lang = navigator.language ?? '';
  return lang.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

/** `$1`..`$9` as chrome.i18n does; `$$` is a literal dollar sign. */
export function substitute(message: string, subs: ReadonlyArray<string | number>): string {
  return message.replace(/\$(\$|[1-9])/g, (_, d: string) =>
    d === '$' ? '$' : String(subs[Number(d) - 1] ?? ''),
  );
}

export function t(key: MessageKey, ...subs: Array<string | number>): string {
  const { active, english } = i18nStore.get();
  const own = active?.[key]?.message;
  if (own !== undefined) return substitute(own, subs);
  try {
    const viaChrome = globalThis.chrome?.i18n?.getMessage?.(key, subs.map(String));
    if (viaChrome) return viaChrome;
  } catch {
    /* not in an extension page */
  }
  const fallback = english?.[key]?.message;
  return fallback !== undefined ? substitute(fallback, subs) : key;
}

/**
 * A message split at its substitutions, so a component can style what was substituted (a page's
 * element name in italics) without searching the finished text for it. Falls back to the whole
 * translated text as one part.
 */
export function messageParts(
  key: MessageKey,
  subs: ReadonlyArray<string>,
): Array<string | { sub: string }> {
  const { active, english } = i18nStore.get();
  const raw = active?.[key]?.message ?? english?.[key]?.message;
  if (raw === undefined) return [t(key, ...subs)];
  const parts: Array<string | { sub: string }> = [];
  raw.split(/(\$\$|\$[1-9])/).forEach((piece, i) => {
    if (i % 2 === 0) {
      if (piece) parts.push(piece);
    } else if (piece === '$$') parts.push('$');
    else parts.push({ sub: subs[Number(piece.slice(1)) - 1] ?? '' });
  });
  return parts;
}

export function currentLocale(): UiLocale {
  return i18nStore.get().locale;
}

/** Install bundles directly (tests, or a caller that already has them). */
export function installBundles(locale: UiLocale, active: Bundle, english: Bundle = active): void {
  i18nStore.set({ locale, active, english });
  document.documentElement.lang = locale;
}

async function fetchBundle(locale: UiLocale): Promise<Bundle | null> {
  try {
    const url = globalThis.chrome?.runtime?.id
      ? chrome.runtime.getURL(`_locales/${localeDir(locale)}/messages.json`)
      : `/_locales/${localeDir(locale)}/messages.json`;
    const res = await fetch(url);
    return res.ok ? ((await res.json()) as Bundle) : null;
  } catch {
    return null;
  }
}

/** The newest `loadLocale` call: an older one still fetching its bundle must not land after it. */
let latestLoad = 0;

/**
 * Load the chosen language (null = follow the browser). Never throws; missing files fall back.
 * The last call wins: a language chosen while an earlier choice's bundle is still loading (the
 * engine's settings arrive in Chinese just after a reload, then the user picks English) must not
 * be overwritten when that earlier fetch completes.
 */
export async function loadLocale(preference: UiLocale | null): Promise<void> {
  const ticket = ++latestLoad;
  const locale = preference ?? browserLocale();
  const prev = i18nStore.get();
  if (prev.active && prev.locale === locale) return;
  const english = prev.english ?? (await fetchBundle('en'));
  const active = locale === 'en' ? english : await fetchBundle(locale);
  if (ticket !== latestLoad) return;
  i18nStore.set({ locale, active, english });
  if (typeof document !== 'undefined') document.documentElement.lang = locale;
}

/**
 * A tool's name for people: the locale's label for known tools (`tool_<name>` keys), else the
 * label the engine sent (MCP tools), else the raw name.
 */
export function toolLabel(name: string, engineLabel?: string): string {
  const key = `tool_${name}` as MessageKey;
  const own = t(key);
  return own !== key ? own : engineLabel || name;
}
