/**
 * A small shop behind fake browser tools named like the real ones (browser_snapshot,
 * browser_click, browser_type), for the engine's replay mechanics (durability, approvals,
 * interrupts, schedules): its snapshot gives the structured outline the real tool puts in
 * `details.outline`, and no outline text. Derivation and replay decisions on real pages are
 * tested on captures of the real snapshot tool (real-snapshots.ts).
 * `variant` changes the markup the way a redesign would: new refs, new product ids in URLs,
 * another product order.
 */
import { z } from 'zod';
import type { AgentTool } from '../../../src/tools/types';
import type { OutlineLine } from '../../../content-scripts/snapshot/outline-lines';
import type { SnapshotOutline } from '../../../src/tools/browser/details';

export const SHOP = 'https://shop.example';

interface Control {
  role: string;
  name: string;
  act: (args: { text?: string; submit?: boolean }) => void;
}

export class FakeShop {
  url = `${SHOP}/`;
  products = [
    { name: 'Blue mug', price: 9 },
    { name: 'Red mug', price: 7 },
    { name: 'Oak tray', price: 12 },
  ];
  cart = new Map<string, number>();
  qty = '1';
  query = '';
  variant = 0;
  /** Every action, for assertions ("click Add to cart", "type Quantity 3"). */
  readonly actions: string[] = [];
  /** Called before each action runs (a test can stall or crash there). */
  beforeAction: (what: string) => Promise<void> | void = () => undefined;
  private refs = new Map<string, Control>();

  reset(): void {
    this.url = `${SHOP}/`;
    this.cart.clear();
    this.qty = '1';
    this.query = '';
    this.actions.length = 0;
  }

  private ordered() {
    const p = [...this.products];
    return this.variant % 2 ? p.reverse() : p;
  }

  private productId(name: string): number {
    return this.products.findIndex((p) => p.name === name) + 1 + this.variant * 40;
  }

  /**
   * The structured outline of the current page (what the real snapshot tool puts in
   * `details.outline`), refreshing the refs. No outline text exists: workflows never read it.
   */
  render(): OutlineLine[] {
    this.refs.clear();
    let n = this.variant * 100;
    const lines: OutlineLine[] = [];
    const ctl = (
      depth: number,
      role: string,
      name: string,
      act: Control['act'],
      value?: string,
    ) => {
      const ref = `e${++n}`;
      this.refs.set(ref, { role, name, act });
      lines.push({
        kind: 'control',
        depth,
        role,
        name,
        ref,
        flags: [],
        ...(value !== undefined ? { value } : {}),
      });
    };
    const heading = (level: number, text: string) =>
      lines.push({ kind: 'heading', depth: 1, level, text });
    const text = (t: string) => lines.push({ kind: 'text', depth: 1, text: t });
    if (!this.url.startsWith(`${SHOP}/`)) {
      lines.push({ kind: 'heading', depth: 0, level: 1, text: 'Somewhere else' });
      return lines;
    }
    const path = new URL(this.url).pathname;
    lines.push({ kind: 'section', depth: 0, role: 'banner', name: '' });
    ctl(1, 'searchbox', 'Search products', ({ text, submit }) => {
      this.query = text ?? '';
      if (submit) this.url = `${SHOP}/search?q=${encodeURIComponent(this.query)}`;
    });
    ctl(1, 'link', 'Cart', () => void (this.url = `${SHOP}/cart`));
    lines.push({ kind: 'section', depth: 0, role: 'main', name: '' });
    if (path === '/' || path === '/search') {
      heading(1, 'Products');
      for (const p of this.ordered().filter(
        (x) => !this.query || x.name.toLowerCase().includes(this.query.toLowerCase()),
      )) {
        heading(2, p.name);
        text(`$${p.price}.00`);
        ctl(1, 'link', p.name, () => void (this.url = `${SHOP}/product/${this.productId(p.name)}`));
      }
    } else if (path.startsWith('/product/')) {
      const p = this.products.find((x) => this.productId(x.name) === Number(path.split('/')[2]));
      if (!p) heading(1, 'Not found');
      else {
        heading(1, p.name);
        text(`$${p.price}.00`);
        ctl(1, 'spinbutton', 'Quantity', ({ text }) => void (this.qty = text ?? ''), this.qty);
        ctl(1, 'button', 'Add to cart', () => {
          this.cart.set(p.name, (this.cart.get(p.name) ?? 0) + Number(this.qty));
          this.url = `${SHOP}/cart`;
        });
      }
    } else if (path === '/cart') {
      heading(1, 'Your cart');
      for (const [name, q] of this.cart) text(`${name} × ${q}`);
    }
    return lines;
  }

  /** The ref of a control in the current page (for the scripted model). */
  refOf(role: string, name: string): string {
    this.render();
    for (const [ref, c] of this.refs) if (c.role === role && c.name === name) return ref;
    throw new Error(`no ${role} "${name}" on ${this.url}`);
  }

  tools(): AgentTool[] {
    const target = async () => ({
      origin: new URL(this.url).origin,
      url: this.url,
      tabId: 1,
      title: 'Shop',
    });
    const snapshot: AgentTool<{ tabId?: number }> = {
      name: 'browser_snapshot',
      label: 'Read page',
      description: 'Read the page.',
      parameters: z.object({ tabId: z.number().optional() }),
      level: 'L0',
      effects: 'read',
      resolveTarget: target,
      execute: async () => {
        const lines = this.render();
        const outline: SnapshotOutline = { frameId: 0, url: this.url, title: 'Shop', lines };
        return {
          content: [{ type: 'text', text: `Snapshot of tab 1 (${lines.length} lines).` }],
          details: { tabId: 1, urlAfter: this.url, outline },
        };
      },
    };
    const act = (
      name: string,
      label: string,
    ): AgentTool<{ ref: string; text?: string; submit?: boolean; tabId?: number }> => ({
      name,
      label,
      description: label,
      parameters: z.object({
        ref: z.string(),
        text: z.string().optional(),
        submit: z.boolean().optional(),
        tabId: z.number().optional(),
      }),
      level: 'L1',
      effects: 'write',
      resolveTarget: target,
      execute: async (_id, params) => {
        const c = this.refs.get(params.ref);
        if (!c)
          throw new Error(
            `Element ref ${params.ref} no longer exists (the page changed or navigated). Take a new browser_snapshot and use a ref from it.`,
          );
        const what = `${label.toLowerCase()} ${c.name}${params.text !== undefined ? ` ${params.text}` : ''}`;
        await this.beforeAction(what);
        const before = this.url;
        c.act(params);
        this.actions.push(what);
        return {
          content: [
            {
              type: 'text',
              text: `${label === 'Click' ? 'Clicked' : 'Typed into'} ${c.role} "${c.name}".`,
            },
          ],
          details: { tabId: 1, urlBefore: before, urlAfter: this.url },
        };
      },
    });
    const open: AgentTool<{ url: string; active?: boolean }> = {
      name: 'browser_tab_open',
      label: 'Open tab',
      description: 'Open a tab.',
      parameters: z.object({ url: z.string(), active: z.boolean().optional() }),
      level: 'L1',
      effects: 'write',
      resolveTarget: async (p) => ({
        origin: new URL(p.url).origin,
        url: p.url,
        tabId: 2,
        title: 'New tab',
      }),
      execute: async (_id, p) => {
        this.url = p.url;
        this.actions.push(`open ${p.url}`);
        return {
          content: [{ type: 'text', text: `Opened tab 2 at ${p.url}.` }],
          details: { tabId: 2, urlAfter: p.url },
        };
      },
    };
    return [snapshot, act('browser_click', 'Click'), act('browser_type', 'Type'), open];
  }
}
