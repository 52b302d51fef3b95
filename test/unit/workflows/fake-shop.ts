/**
 * A small shop behind fake browser tools named like the real ones (browser_snapshot,
 * browser_click, browser_type): the snapshot text has the real tool's format (header, untrusted
 * block, Title/URL, outline), so workflows derive and resolve on what the model would see.
 * `variant` changes the markup the way a redesign would: new refs, new product ids in URLs,
 * another product order.
 */
import { z } from 'zod';
import type { AgentTool } from '../../../src/tools/types';
import { UNTRUSTED_NOTE, untrustedPageContent } from '../../../src/tools/browser/untrusted';

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

  /** The outline of the current page, refreshing the refs. */
  render(): string {
    this.refs.clear();
    let n = this.variant * 100;
    const lines: string[] = [];
    const ctl = (
      depth: number,
      role: string,
      name: string,
      act: Control['act'],
      value?: string,
    ) => {
      const ref = `e${++n}`;
      this.refs.set(ref, { role, name, act });
      lines.push(
        `${'  '.repeat(depth)}- ${role} "${name}" [ref=${ref}]${value !== undefined ? `: ${value}` : ''}`,
      );
    };
    if (!this.url.startsWith(`${SHOP}/`)) return '# Somewhere else';
    const path = new URL(this.url).pathname;
    lines.push('- banner:');
    ctl(1, 'searchbox', 'Search products', ({ text, submit }) => {
      this.query = text ?? '';
      if (submit) this.url = `${SHOP}/search?q=${encodeURIComponent(this.query)}`;
    });
    ctl(1, 'link', 'Cart', () => void (this.url = `${SHOP}/cart`));
    lines.push('- main:');
    if (path === '/' || path === '/search') {
      lines.push('  # Products');
      for (const p of this.ordered().filter(
        (x) => !this.query || x.name.toLowerCase().includes(this.query.toLowerCase()),
      )) {
        lines.push(`  ## ${p.name}`, `  $${p.price}.00`);
        ctl(1, 'link', p.name, () => void (this.url = `${SHOP}/product/${this.productId(p.name)}`));
      }
    } else if (path.startsWith('/product/')) {
      const p = this.products.find((x) => this.productId(x.name) === Number(path.split('/')[2]));
      if (!p) lines.push('  # Not found');
      else {
        lines.push(`  # ${p.name}`, `  $${p.price}.00`);
        ctl(1, 'spinbutton', 'Quantity', ({ text }) => void (this.qty = text ?? ''), this.qty);
        ctl(1, 'button', 'Add to cart', () => {
          this.cart.set(p.name, (this.cart.get(p.name) ?? 0) + Number(this.qty));
          this.url = `${SHOP}/cart`;
        });
      }
    } else if (path === '/cart') {
      lines.push('  # Your cart');
      for (const [name, q] of this.cart) lines.push(`  ${name} × ${q}`);
    }
    return lines.join('\n');
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
        const body = `Title: Shop\nURL: ${this.url}\n${this.render()}`;
        return {
          content: [
            {
              type: 'text',
              text: `Snapshot of tab 1 (whole page).\n${UNTRUSTED_NOTE}\n${untrustedPageContent(this.url, body)}`,
            },
          ],
          details: { tabId: 1, urlAfter: this.url },
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
