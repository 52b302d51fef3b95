/**
 * The composed tree (content-scripts/dom/composed.ts) that find, the snapshot, the change
 * tracker and the actions share: shadow trees replace a host's light children, slots show their
 * assigned nodes (or their fallback), and ancestry crosses slots and shadow boundaries.
 */
// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import {
  composedClosest,
  composedContains,
  composedElements,
  composedParent,
  mayHostShadow,
} from '../../../content-scripts/dom/composed';

const shadowOf = (el: Element) => el.shadowRoot;

function app(): { host: HTMLElement; root: ShadowRoot } {
  document.body.innerHTML =
    '<main><x-card id="host"><span slot="title" id="slotted">Title</span><i id="unslotted">never shown</i></x-card><p id="after">after</p></main>';
  const host = document.getElementById('host') as HTMLElement;
  const root = host.attachShadow({ mode: 'open' });
  root.innerHTML =
    '<h2 id="h"><slot name="title"></slot></h2><slot name="none"><b id="fallback">fallback</b></slot><ul><li id="row"><label id="lab">Buy milk</label></li></ul>';
  return { host, root };
}

describe('composed tree', () => {
  it('walks shadow trees in place of light children, slots with their assigned nodes or fallback', () => {
    app();
    const ids = [...composedElements(document.body, shadowOf)].map((e) => e.id || e.localName);
    expect(ids).toEqual([
      'body',
      'main',
      'host',
      'h',
      'slot',
      'slotted',
      'slot',
      'fallback',
      'ul',
      'row',
      'lab',
      'after',
    ]);
    expect(ids).not.toContain('unslotted');
  });

  it('ancestry crosses the slot and the shadow boundary', () => {
    const { host, root } = app();
    const slotted = document.getElementById('slotted')!;
    // Chromium gives the slot (assignedSlot); happy-dom has no assignedSlot and gives the host.
    expect(['slot', 'x-card']).toContain(composedParent(slotted)?.localName);
    expect(composedContains(host, slotted)).toBe(true);
    const label = root.getElementById('lab')!;
    expect(composedContains(host, label)).toBe(true);
    expect(composedContains(document.querySelector('main')!, label)).toBe(true);
    expect(composedClosest(label, 'li')?.id).toBe('row');
    expect(composedClosest(label, 'main')?.localName).toBe('main');
    expect(composedContains(label, host)).toBe(false);
  });

  it('asks for shadow roots only where attachShadow could have made one', () => {
    for (const tag of ['x-card', 'div', 'span', 'section'])
      expect(mayHostShadow(document.createElement(tag))).toBe(true);
    for (const tag of ['td', 'button', 'input', 'li', 'a'])
      expect(mayHostShadow(document.createElement(tag))).toBe(false);
  });
});
