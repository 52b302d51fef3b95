// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { PanelContext } from '../../../sidepanel/components/panel-context';
import { SkillsSection } from '../../../sidepanel/components/settings/SkillsSection';
import { ThreadOptions } from '../../../sidepanel/components/ThreadOptions';

/** A Panel double that records what the components ask for (the UI's own unit test). */
function fakePanel(state: Record<string, unknown>) {
  const calls: unknown[][] = [];
  const listeners = new Set<() => void>();
  const engine = {
    get: () => state,
    subscribe: (l: () => void) => (listeners.add(l), () => listeners.delete(l)),
    update: () => undefined,
  };
  const ui = {
    get: () => ({ compactReads: true }),
    subscribe: () => () => undefined,
    update: () => undefined,
  };
  const panel = {
    engine,
    ui,
    setCompactReads: (on: boolean) => calls.push(['setCompactReads', on]),
    importSkill: async (c: string) => (
      calls.push(['importSkill', c]), { ok: true, result: { name: 'x' } }
    ),
    removeSkill: async (n: string) => (calls.push(['removeSkill', n]), { ok: true }),
    setThreadOptions: async (id: string, o: unknown) => (
      calls.push(['setThreadOptions', id, o]), { ok: true }
    ),
  };
  return { panel, calls };
}

describe('skills and per-thread options in the panel', () => {
  it('lists skills and removes one', async () => {
    const { panel, calls } = fakePanel({});
    const root = document.createElement('div');
    document.body.append(root);
    await act(() =>
      render(
        <PanelContext.Provider value={panel as never}>
          <SkillsSection
            skills={[{ name: 'price-compare', description: 'Compare prices', updatedAt: 1 }]}
          />
        </PanelContext.Provider>,
        root,
      ),
    );
    expect(root.textContent).toContain('price-compare');
    expect(root.textContent).toContain('Compare prices');
    await act(async () => (root.querySelector('[data-skill] button') as HTMLButtonElement).click());
    expect(calls).toEqual([['removeSkill', 'price-compare']]);
  });

  it('toggles Plan first and enables a skill for the thread', async () => {
    const state = {
      byId: { t1: { meta: { planFirst: false, enabledSkills: [] } } },
      settings: { skills: [{ name: 'a', description: 'A', updatedAt: 1 }] },
    };
    const { panel, calls } = fakePanel(state);
    const root = document.createElement('div');
    document.body.append(root);
    await act(() =>
      render(
        <PanelContext.Provider value={panel as never}>
          <ThreadOptions threadId="t1" />
        </PanelContext.Provider>,
        root,
      ),
    );
    const boxes = root.querySelectorAll('input[type=checkbox]');
    // Plan first, compact reads (a panel preference), then the thread's skills.
    expect(boxes).toHaveLength(3);
    await act(async () => (boxes[0] as HTMLInputElement).click());
    await act(async () => (boxes[1] as HTMLInputElement).click());
    await act(async () => (boxes[2] as HTMLInputElement).click());
    expect(calls).toEqual([
      ['setThreadOptions', 't1', { planFirst: true }],
      ['setCompactReads', false],
      ['setThreadOptions', 't1', { enabledSkills: ['a'] }],
    ]);
  });
});
