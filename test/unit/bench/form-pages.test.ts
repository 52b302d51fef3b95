/**
 * The snapshot benchmark's form pages (scripts/bench/form-pages.ts): a seed gives the same
 * bytes, the dev and held-out seed ranges never share a page, and the pages hold the structures
 * the set exists for (every kind of form, Chinese labels, long country lists, hidden fields).
 */
import { describe, expect, it } from 'vitest';
import { DEV_SEEDS, generateFormPages, HELD_OUT_SEEDS } from '../../../scripts/bench/form-pages';

describe('form pages', () => {
  it('are the same bytes for the same seeds', () => {
    const a = generateFormPages(DEV_SEEDS);
    const b = generateFormPages(DEV_SEEDS);
    expect([...a.entries()]).toEqual([...b.entries()]);
    expect(a.size).toBe(DEV_SEEDS.to - DEV_SEEDS.from + 1);
  });

  it('keep the held-out seeds apart from the dev seeds', () => {
    expect(HELD_OUT_SEEDS.from).toBeGreaterThan(DEV_SEEDS.to);
    const dev = new Set(generateFormPages(DEV_SEEDS).values());
    for (const html of generateFormPages(HELD_OUT_SEEDS).values())
      expect(dev.has(html)).toBe(false);
  });

  it('cover the structures real forms use', () => {
    const all = [
      ...generateFormPages(DEV_SEEDS).entries(),
      ...generateFormPages(HELD_OUT_SEEDS).entries(),
    ];
    const names = all.map(([n]) => n).join(' ');
    for (const kind of [
      'signup',
      'checkout',
      'address',
      'survey',
      'settings',
      'filters',
      'job',
      'transfer',
    ])
      expect(names).toContain(kind);
    const html = all.map(([, h]) => h).join('\n');
    for (const needle of [
      '<fieldset',
      '<legend>',
      'aria-labelledby=',
      'placeholder=',
      'aria-describedby=',
      'aria-invalid="true"',
      'role="alert"',
      'role="combobox"',
      'role="switch"',
      'role="listbox"',
      'contenteditable="true"',
      'type="radio"',
      'type="checkbox"',
      'type="file"',
      'type="color"',
      'type="range"',
      'type="date"',
      '<textarea',
      ' multiple ',
      '<optgroup',
      'type="hidden"',
      ' hidden>',
      'display:none',
      ' disabled',
      '<table',
      'grid-template-columns',
      'United States',
      'lang="zh"',
    ])
      expect(html, needle).toContain(needle);
  });
});
