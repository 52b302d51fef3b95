/**
 * Listing a tab's page tools before a model call is bounded: a page showing a JavaScript dialog
 * runs no script until the dialog is answered, and the model that must answer it is asked in the
 * meantime. Found in Chromium: every dialog test hung for 40 s once page tools were listed before
 * each model call. The tools listed before stand while the page cannot answer.
 */
import { describe, expect, it } from 'vitest';
import type { BrowserHost } from '../../../../src/tools/browser/host';
import { PageTools } from '../../../../src/tools/page/page-tools';
import { ToolRegistry } from '../../../../src/tools/registry';

const ORIGIN = 'https://shop.example';

function fakeHost(answer: () => Promise<unknown>): BrowserHost {
  const host: Partial<BrowserHost> = {
    getTab: async (tabId: number) =>
      ({ tabId, windowId: 1, url: `${ORIGIN}/cart`, title: 'Cart', active: true }) as never,
    runInMainWorld: (() => answer()) as never,
    setTimer: (ms, fn) => {
      const t = setTimeout(fn, ms);
      return () => clearTimeout(t);
    },
  };
  return host as BrowserHost;
}

const listing = {
  origin: ORIGIN,
  listing: {
    docId: 'doc1',
    tools: [{ kind: 'imperative', name: 'add_item', description: 'Adds an item to the cart.' }],
  },
};

describe('PageTools.discover', () => {
  it('keeps the tools listed before when the page cannot answer (a dialog is open)', async () => {
    let blocked = false;
    const tools = new PageTools({
      host: fakeHost(() => (blocked ? new Promise(() => {}) : Promise.resolve(listing))),
      registry: new ToolRegistry(),
      listTimeoutMs: 50,
    });
    const first = await tools.discover(7);
    expect(first.map((t) => t.tool.name)).toEqual(['page_shop_example_add_item']);
    blocked = true;
    const started = Date.now();
    const during = await tools.discover(7);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(during.map((t) => t.tool.name)).toEqual(['page_shop_example_add_item']);
    // A tab never listed before offers nothing while it cannot answer.
    expect(await tools.discover(8)).toEqual([]);
  });
});
