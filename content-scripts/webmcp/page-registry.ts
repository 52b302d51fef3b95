/**
 * WebMCP in the page's own world (a MAIN-world content script at document_start, bundled by
 * scripts/build-content-script.mjs). It keeps the tools a page registers through
 * `document.modelContext` and the declarative `<form toolname>`s, and answers Keel's service
 * worker through `window[BRIDGE_KEY]` (src/tools/page/page-tools.ts calls it with
 * chrome.scripting in the MAIN world).
 *
 * - No `document.modelContext` yet (today's browsers): a small polyfill provides
 *   `registerTool(tool, {signal})`, `unregisterTool(name)`, `provideContext({tools})`,
 *   `clearContext()` and a `toolchange` event. The property stays configurable and assignable:
 *   a page that installs its own `modelContext` gets it, and Keel observes that one instead.
 * - A native (or page-made) `modelContext`: its methods are wrapped to mirror registrations; each
 *   call still goes to the original, so the page sees the behaviour it expects.
 *
 * The page can see, call and forge all of this. That is fine: everything here is the page's own
 * data and code, it reaches the model as untrusted content, and it grants nothing — the
 * Gatekeeper judges a page tool on the tab's origin as Chrome reports it.
 */
import { BRIDGE_KEY } from '../../src/tools/page/bridge-key';
import type {
  CallOutcome,
  FormField,
  ListedTool,
  PageBridge,
} from '../../src/tools/page/page-wire';
import { isExposedControl } from '../../src/tools/page/form-schema';

interface PageTool {
  name: string;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  execute: (input: unknown, client: unknown) => unknown;
  annotations?: { readOnlyHint?: unknown; untrustedContentHint?: unknown };
}

type ModelContextLike = EventTarget & {
  registerTool?: (tool: PageTool, options?: { signal?: AbortSignal }) => unknown;
  unregisterTool?: (name: string) => unknown;
  provideContext?: (ctx: { tools?: PageTool[] }) => unknown;
  clearContext?: () => unknown;
};

const MAX_SCHEMA_CHARS = 200_000;
const MAX_RESULT_CHARS = 100_000;
// Captured now: a page script may replace them later (it only breaks its own tools if it does).
const stringify = JSON.stringify;
const Doc = document;

function install(): void {
  if (Object.getOwnPropertyDescriptor(window, BRIDGE_KEY)) return; // injected twice
  const tools = new Map<string, PageTool>();
  const docId = randomId();
  const calls = new Map<string, (o: CallOutcome) => void>();

  /** Mirror one registration (ours, or a native one already accepted). */
  function remember(tool: PageTool, signal?: AbortSignal): void {
    tools.set(tool.name, tool);
    signal?.addEventListener('abort', () => {
      if (tools.get(tool.name) === tool) tools.delete(tool.name);
    });
  }

  // --- the polyfill -------------------------------------------------------------------------
  class ModelContext extends EventTarget {
    registerTool(tool: PageTool, options?: { signal?: AbortSignal }): void {
      if (!tool || typeof tool.name !== 'string' || !tool.name)
        throw new TypeError('registerTool: the tool needs a name');
      if (typeof tool.execute !== 'function')
        throw new TypeError('registerTool: the tool needs an execute function');
      if (tools.has(tool.name))
        throw new DOMException(`A tool named "${tool.name}" is registered`, 'InvalidStateError');
      if (options?.signal?.aborted) return;
      remember(tool, options?.signal);
      options?.signal?.addEventListener('abort', () => this.changed());
      this.changed();
    }
    unregisterTool(name: string): void {
      if (tools.delete(name)) this.changed();
    }
    provideContext(ctx: { tools?: PageTool[] } = {}): void {
      tools.clear();
      for (const t of ctx.tools ?? []) this.registerTool(t);
      this.changed();
    }
    clearContext(): void {
      tools.clear();
      this.changed();
    }
    private changed(): void {
      this.dispatchEvent(new Event('toolchange'));
    }
  }

  /** Observe a modelContext Keel did not make, without changing what its methods do. */
  function observe(mc: ModelContextLike): void {
    if (!mc || typeof mc !== 'object' || mc instanceof ModelContext) return;
    try {
      const register = mc.registerTool;
      if (typeof register === 'function')
        mc.registerTool = function (this: unknown, tool, options) {
          const out = register.call(this, tool, options);
          if (tool && typeof tool.name === 'string' && typeof tool.execute === 'function')
            remember(tool, options?.signal);
          return out;
        };
      const unregister = mc.unregisterTool;
      if (typeof unregister === 'function')
        mc.unregisterTool = function (this: unknown, name) {
          tools.delete(name);
          return unregister.call(this, name);
        };
      const provide = mc.provideContext;
      if (typeof provide === 'function')
        mc.provideContext = function (this: unknown, ctx) {
          const out = provide.call(this, ctx);
          tools.clear();
          for (const t of ctx?.tools ?? []) if (t && typeof t.name === 'string') remember(t);
          return out;
        };
      const clear = mc.clearContext;
      if (typeof clear === 'function')
        mc.clearContext = function (this: unknown) {
          tools.clear();
          return clear.call(this);
        };
    } catch {
      // A frozen native object: its tools stay the browser's business.
    }
  }

  const existing = (Doc as unknown as { modelContext?: ModelContextLike }).modelContext;
  if (existing) observe(existing);
  else {
    let current: ModelContextLike = new ModelContext();
    try {
      Object.defineProperty(Doc, 'modelContext', {
        configurable: true,
        enumerable: true,
        get: () => current,
        set: (v: ModelContextLike) => {
          current = v;
          observe(v);
        },
      });
    } catch {
      // Not ours to define.
    }
  }

  // --- declarative forms --------------------------------------------------------------------
  function toolForms(): HTMLFormElement[] {
    return [...Doc.querySelectorAll('form[toolname]')] as HTMLFormElement[];
  }

  function formFields(form: HTMLFormElement): FormField[] {
    const out: FormField[] = [];
    const seen = new Map<string, FormField>();
    for (const el of [...form.elements] as HTMLInputElement[]) {
      const name = el.name;
      if (!name || el.disabled) continue;
      const control =
        el.tagName === 'SELECT'
          ? 'select'
          : el.tagName === 'TEXTAREA'
            ? 'textarea'
            : (el.type || 'text').toLowerCase();
      if (el.tagName === 'BUTTON' || el.tagName === 'FIELDSET' || !isExposedControl(control))
        continue;
      const prev = seen.get(name);
      if (prev) {
        if (control === 'radio' && prev.control === 'radio') prev.options?.push(el.value);
        continue;
      }
      const description =
        el.getAttribute('toolparamdescription') ??
        el.labels?.[0]?.textContent?.trim() ??
        el.getAttribute('aria-label') ??
        el.getAttribute('placeholder') ??
        undefined;
      const field: FormField = {
        name,
        control,
        required: el.required,
        ...(description ? { description: description.slice(0, 500) } : {}),
      };
      if (control === 'select') {
        const select = el as unknown as HTMLSelectElement;
        field.options = [...select.options].map((o) => o.value).filter((v) => v !== '');
        if (select.multiple) field.multiple = true;
      }
      if (control === 'radio') field.options = [el.value];
      seen.set(name, field);
      out.push(field);
    }
    return out;
  }

  function fill(form: HTMLFormElement, args: Record<string, unknown>): void {
    for (const [name, value] of Object.entries(args ?? {})) {
      const item = form.elements.namedItem(name);
      if (!item) continue;
      const els = (item instanceof RadioNodeList ? [...item] : [item]) as HTMLInputElement[];
      for (const el of els) {
        if (el.type === 'checkbox') el.checked = value === true;
        else if (el.type === 'radio') el.checked = el.value === String(value);
        else if (el.tagName === 'SELECT' && Array.isArray(value)) {
          for (const o of (el as unknown as HTMLSelectElement).options)
            o.selected = value.map(String).includes(o.value);
        } else setValue(el, value === undefined || value === null ? '' : String(value));
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }
    }
  }

  // --- the bridge ----------------------------------------------------------------------------
  const bridge: PageBridge = {
    list() {
      const listed: ListedTool[] = [];
      for (const t of tools.values()) {
        let schema: string | undefined;
        try {
          schema =
            t.inputSchema === undefined
              ? undefined
              : stringify(t.inputSchema)?.slice(0, MAX_SCHEMA_CHARS + 1);
        } catch {
          continue;
        }
        listed.push({
          kind: 'imperative',
          name: String(t.name).slice(0, 200),
          ...(typeof t.title === 'string' ? { title: t.title.slice(0, 200) } : {}),
          description: String(t.description ?? '').slice(0, 20_000),
          ...(schema !== undefined ? { inputSchema: schema } : {}),
          ...(t.annotations?.readOnlyHint === true ? { readOnlyHint: true } : {}),
          ...(t.annotations?.untrustedContentHint === true ? { untrustedContentHint: true } : {}),
        });
      }
      for (const form of toolForms()) {
        const name = form.getAttribute('toolname') ?? '';
        if (!name || tools.has(name)) continue;
        listed.push({
          kind: 'form',
          name: name.slice(0, 200),
          description: (form.getAttribute('tooldescription') ?? '').slice(0, 20_000),
          autosubmit: form.hasAttribute('toolautosubmit'),
          fields: formFields(form).slice(0, 100),
        });
      }
      return { docId, tools: listed.slice(0, 200) };
    },

    call(forDoc, name, args, callId) {
      if (forDoc !== docId)
        return Promise.resolve({
          ok: false,
          code: 'navigated',
          error: 'The page was reloaded or replaced since its tools were listed.',
        });
      const tool = tools.get(name);
      const form = tool ? undefined : toolForms().find((f) => f.getAttribute('toolname') === name);
      if (!tool && !form)
        return Promise.resolve({
          ok: false,
          code: 'gone',
          error: `The page no longer offers a tool named "${name}".`,
        });
      return new Promise<CallOutcome>((resolve) => {
        calls.set(callId, resolve);
        const finish = (o: CallOutcome) => {
          if (calls.get(callId) !== resolve) return;
          calls.delete(callId);
          resolve(o);
        };
        const run = async (): Promise<string> => {
          if (tool) {
            const client = { requestUserInteraction: async (cb: () => unknown) => cb() };
            return resultText(await tool.execute(args, client));
          }
          fill(form!, (args ?? {}) as Record<string, unknown>);
          if (form!.hasAttribute('toolautosubmit')) {
            form!.requestSubmit();
            return `The form "${name}" was filled and submitted.`;
          }
          return `The form "${name}" was filled; the user must submit it.`;
        };
        run().then(
          (text) => finish({ ok: true, text: text.slice(0, MAX_RESULT_CHARS) }),
          (e) => finish({ ok: false, code: 'failed', error: errorText(e) }),
        );
      });
    },

    abort(callId) {
      calls.get(callId)?.({ ok: false, code: 'aborted', error: 'The call was interrupted.' });
      calls.delete(callId);
    },
  };
  Object.defineProperty(window, BRIDGE_KEY, { value: Object.freeze(bridge) });
}

function resultText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  const content = (v as { content?: unknown }).content;
  if (Array.isArray(content))
    return content
      .map((c) =>
        c && (c as { type?: unknown }).type === 'text'
          ? String((c as { text?: unknown }).text ?? '')
          : `[${String((c as { type?: unknown })?.type ?? 'content')}]`,
      )
      .join('\n');
  try {
    return stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function errorText(e: unknown): string {
  try {
    return String(e instanceof Error ? e.message : e).slice(0, 2000) || 'The tool failed.';
  } catch {
    return 'The tool failed.';
  }
}

/** Assign through the prototype's setter, so frameworks that track the value see the change. */
function setValue(el: HTMLInputElement, value: string): void {
  const proto =
    el.tagName === 'TEXTAREA'
      ? HTMLTextAreaElement.prototype
      : el.tagName === 'SELECT'
        ? HTMLSelectElement.prototype
        : HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
  if (setter) setter.call(el, value);
  else el.value = value;
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

install();
