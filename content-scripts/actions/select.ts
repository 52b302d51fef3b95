/**
 * Choosing options in a native <select>. Options are matched by value, then label, exact before
 * case-insensitive; an ambiguous or missing option is an error listing what exists, never a guess.
 */
import type { AgentContext } from '../agent-context';
import { normalizeSpace } from '../dom/text';
import type { ActionAck } from '../../src/protocol/page-messages';
import { describeElement } from './describe';
import { bringIntoView, type Deferred } from './pointer';

export function selectOptions(
  ctx: AgentContext,
  ref: string,
  docId: string | undefined,
  values: string[],
): Deferred<ActionAck> {
  const el = ctx.resolve(ref, docId);
  if (el.localName !== 'select') {
    ctx.fail(
      'not_actionable',
      `Element ${ref} (${describeElement(el)}) is not a native select. For a custom dropdown, browser_click it, then click the option in a new snapshot.`,
    );
  }
  const select = el as HTMLSelectElement;
  if (select.disabled) ctx.fail('not_actionable', `Element ${ref} is disabled.`);
  if (!select.multiple && values.length > 1)
    ctx.fail('bad_request', `Element ${ref} accepts one option; pass a single value.`);
  const options = Array.from(select.options);
  const chosen = values.map((v) => {
    const option = matchOption(options, v);
    if (!option) {
      const list = options
        .slice(0, 30)
        .map((o) => `"${normalizeSpace(o.label || o.text)}"`)
        .join(', ');
      ctx.fail(
        'not_found',
        `No option "${v}" in ${ref}. Options: ${list}${options.length > 30 ? ', …' : ''}.`,
      );
    }
    if (option.disabled) ctx.fail('not_actionable', `Option "${v}" of ${ref} is disabled.`);
    return option;
  });
  bringIntoView(select);
  ctx.highlighter.show(select.getBoundingClientRect(), 'select');
  const labels = chosen.map((o) => normalizeSpace(o.label || o.text));
  return {
    result: {
      docId: ctx.registry.docId,
      url: ctx.env.win.location.href,
      element: ctx.report(select),
      note: `selected ${labels.map((l) => `"${l}"`).join(', ')}`,
    },
    doc: select.ownerDocument,
    run: () => {
      select.focus({ preventScroll: true });
      for (const o of options) o.selected = chosen.includes(o);
      const view = (select.ownerDocument.defaultView ?? window) as Window & typeof globalThis;
      select.dispatchEvent(new view.Event('input', { bubbles: true, composed: true }));
      select.dispatchEvent(new view.Event('change', { bubbles: true }));
    },
  };
}

function matchOption(options: HTMLOptionElement[], wanted: string): HTMLOptionElement | undefined {
  const w = normalizeSpace(wanted);
  const lower = w.toLowerCase();
  const label = (o: HTMLOptionElement) => normalizeSpace(o.label || o.text);
  return (
    options.find((o) => o.value === wanted) ??
    options.find((o) => label(o) === w) ??
    options.find((o) => label(o).toLowerCase() === lower) ??
    options.find((o) => o.value.toLowerCase() === lower) ??
    unique(options.filter((o) => label(o).toLowerCase().includes(lower)))
  );
}

function unique<T>(xs: T[]): T | undefined {
  return xs.length === 1 ? xs[0] : undefined;
}
