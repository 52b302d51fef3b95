/**
 * Recording a workflow by demonstration (issue 27, docs/workflows.md "Record by showing"): while
 * the worker has armed this document, the user's own clicks, typing, selections and Enter presses
 * become steps in the same form a model-derived workflow has (tool, params, semantic locator).
 *
 * - Only `isTrusted` events count. A page's synthetic events and its scripted `el.click()` are
 *   not the user, so a page cannot write steps into a recording.
 * - The locator is computed here from a structured snapshot taken before the page's own handlers
 *   run (capture phase), so the element is described as the user saw it. Only the locator leaves
 *   the page, never the outline (other fields' values stay here).
 * - A secret field (password, one-time code, card number) is recorded as "typed a secret here":
 *   its value is never read into a message.
 * - The indicator is visible in the top document for the whole recording and is excluded from
 *   snapshots.
 */
import { locatorIn, type SemanticLocator } from '../src/workflows/locator';
import { outlineOf } from '../src/workflows/outline';
import type { OutlineLine } from './snapshot/outline-lines';
import { isSecretAutocomplete, looksLikeCardNumber } from './dom/state';

/** Worker → content script: `{ kind, recordingId: string | null, label? }` (null disarms). */
export const RECORD_ARM_MESSAGE = 'keel/record-arm';
/** Content script → worker, over a Port named RECORD_PORT: `{ kind, recordingId, step }`. */
export const RECORD_STEP_MESSAGE = 'keel/record-step';
export const RECORD_PORT = 'keel-recording';

/**
 * The snapshot a recording reads a page with (a step's locator, the last page's final check):
 * the whole page, no diff. Its own text limit keeps it apart from the model's incremental base.
 */
export const RECORDING_SNAPSHOT = {
  mode: 'full',
  incremental: false,
  maxTokens: 200_000,
  textLimit: 199,
  includeUrls: false,
  refPrefix: '',
} as const;

/** One thing the user did, as the page saw it. `url` is the document's at that moment. */
export type RecordedStep =
  | { action: 'click'; locator: SemanticLocator; doubleClick: boolean; url: string }
  | {
      action: 'type';
      locator: SemanticLocator;
      /** Absent for a secret field: its value never leaves the page. */
      text?: string;
      secret?: true;
      /** The user pressed Enter in the field after typing. */
      submit: boolean;
      url: string;
    }
  | { action: 'select'; locator: SemanticLocator; values: string[]; url: string }
  | { action: 'press_key'; key: 'Enter'; locator: SemanticLocator; url: string };

export interface RecorderDeps {
  win: Window;
  /** The document's structured outline now (refs assigned, no prefix). */
  outline(): { url: string; title: string; lines: OutlineLine[] };
  refOf(el: Element): string | undefined;
  send(step: RecordedStep): void;
  /** Elements snapshots must skip (the indicator joins them). */
  owned: Set<Element>;
  /** Shown on the page while recording (the top document only). */
  label?: string;
}

/** Roles whose click only puts the caret in them: their typing is the step. */
const FIELD_ROLES = new Set(['textbox', 'searchbox', 'spinbutton']);
const TEXT_TYPES = new Set(['', 'text', 'search', 'email', 'tel', 'url', 'number', 'password']);

function isTextInput(el: Element): el is HTMLInputElement | HTMLTextAreaElement {
  if (el.localName === 'textarea') return true;
  return el.localName === 'input' && TEXT_TYPES.has((el as HTMLInputElement).type);
}

function isSecretField(el: Element): boolean {
  if (el.localName !== 'input') return false;
  const input = el as HTMLInputElement;
  return input.type === 'password' || isSecretAutocomplete(input) || looksLikeCardNumber(input);
}

const CLICK_INPUTS = new Set(['button', 'submit', 'reset', 'image', 'checkbox', 'radio']);

/** Enter on these is a click (the browser dispatches one): the click is the step. */
function activatesByClick(el: Element): boolean {
  switch (el.localName) {
    case 'button':
    case 'summary':
    case 'select':
      return true;
    case 'a':
      return el.hasAttribute('href');
    case 'input':
      return CLICK_INPUTS.has((el as HTMLInputElement).type);
    default:
      return false;
  }
}

/** The element the event reached first, through open shadow roots. */
function targetOf(e: Event): Element | null {
  const first = e.composedPath()[0];
  return first instanceof Element ? first : e.target instanceof Element ? e.target : null;
}

function parentAcrossShadow(el: Element): Element | null {
  if (el.parentElement) return el.parentElement;
  const root = el.getRootNode();
  return root instanceof ShadowRoot ? root.host : null;
}

function editableRoot(el: Element): HTMLElement | null {
  const h = el as HTMLElement;
  if (!h.isContentEditable) return null;
  let root: HTMLElement = h;
  while (root.parentElement?.isContentEditable) root = root.parentElement;
  return root;
}

export class Recorder {
  private recordingId: string | null = null;
  private readonly recorded = new WeakMap<Element, string>();
  private readonly editStart = new WeakMap<Element, string>();
  /** The form an Enter in its field is submitting (its default button's click is that step). */
  private submitting: HTMLFormElement | null = null;
  private indicator: HTMLElement | null = null;
  private readonly listeners: [string, (e: Event) => void][];

  constructor(private readonly deps: RecorderDeps) {
    this.listeners = [
      ['click', (e) => this.onClick(e as MouseEvent, false)],
      ['dblclick', (e) => this.onClick(e as MouseEvent, true)],
      ['keydown', (e) => this.onKeyDown(e as KeyboardEvent)],
      ['change', (e) => this.onChange(e)],
      ['focusin', (e) => this.onFocusIn(e)],
      ['focusout', (e) => this.onFocusOut(e)],
    ];
  }

  get armed(): string | null {
    return this.recordingId;
  }

  arm(recordingId: string | null, label?: string): void {
    const top = this.deps.win === this.deps.win.top;
    if (recordingId === this.recordingId) {
      // Armed again (a new page load of the tab): the badge comes back if the page removed it.
      if (recordingId !== null && top) this.showIndicator(label ?? this.deps.label);
      return;
    }
    const win = this.deps.win;
    if (this.recordingId === null && recordingId !== null)
      for (const [type, fn] of this.listeners) win.addEventListener(type, fn, true);
    if (this.recordingId !== null && recordingId === null)
      for (const [type, fn] of this.listeners) win.removeEventListener(type, fn, true);
    this.recordingId = recordingId;
    this.showIndicator(
      recordingId !== null && win === win.top ? (label ?? this.deps.label) : undefined,
    );
  }

  /** The locator of the control `el` is, or sits in; null when the outline does not list it. */
  private locate(el: Element): SemanticLocator | null {
    const snap = this.deps.outline();
    const outline = outlineOf({ frameId: 0, url: snap.url, title: snap.title, lines: snap.lines });
    const refs = new Set(outline.controls.map((c) => c.ref));
    for (let cur: Element | null = el; cur; cur = parentAcrossShadow(cur)) {
      const ref = this.deps.refOf(cur);
      if (ref && refs.has(ref)) return locatorIn(outline, ref, snap.url);
    }
    return null;
  }

  private url(): string {
    return this.deps.win.location.href;
  }

  private onClick(e: MouseEvent, doubleClick: boolean): void {
    if (!e.isTrusted || e.button !== 0) return;
    const el = targetOf(e);
    if (!el || this.deps.owned.has(el)) return;
    // Enter in a field clicks the form's default button (implicit submission, detail 0): the
    // Enter was the step.
    if (this.submitting && e.detail === 0 && el.closest('form') === this.submitting) return;
    // A click on a label is forwarded by the browser to its control as a second (trusted)
    // click: that one is the step, the label's own is not.
    const control = el.closest('label')?.control;
    if (control && el !== control && !control.contains(el)) return;
    // Clicking into a field, or opening a native select, is not a step: what is typed or chosen is.
    if (isTextInput(el) || el.localName === 'select' || el.localName === 'option') return;
    if (editableRoot(el)) return;
    const locator = this.locate(el);
    if (!locator || FIELD_ROLES.has(locator.role)) return;
    this.deps.send({ action: 'click', locator, doubleClick, url: this.url() });
  }

  private onKeyDown(e: KeyboardEvent): void {
    if (!e.isTrusted || e.key !== 'Enter' || e.isComposing) return;
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const el = targetOf(e);
    if (!el || el.localName === 'textarea' || editableRoot(el) || activatesByClick(el)) return;
    const locator = this.locate(el);
    if (!locator) return;
    if (el.localName === 'input' && isTextInput(el)) {
      const form = (el as HTMLInputElement).form;
      if (form) {
        this.submitting = form;
        setTimeout(() => {
          if (this.submitting === form) this.submitting = null;
        }, 0);
      }
      if (this.typeStep(el, locator, true)) return;
    }
    this.deps.send({ action: 'press_key', key: 'Enter', locator, url: this.url() });
  }

  /** Records what the field holds if it changed since the last step; false when it did not. */
  private typeStep(
    el: HTMLInputElement | HTMLTextAreaElement,
    locator: SemanticLocator,
    submit: boolean,
  ): boolean {
    const secret = isSecretField(el);
    // For a secret only "something new was typed" is kept, never what.
    const seen = secret ? `secret:${el.value.length}:${el.value ? 1 : 0}` : `text:${el.value}`;
    if (this.recorded.get(el) === seen) return false;
    this.recorded.set(el, seen);
    this.deps.send(
      secret
        ? { action: 'type', locator, secret: true, submit, url: this.url() }
        : { action: 'type', locator, text: el.value, submit, url: this.url() },
    );
    return true;
  }

  private onChange(e: Event): void {
    if (!e.isTrusted) return;
    const el = targetOf(e);
    if (!el) return;
    if (isTextInput(el)) {
      const locator = this.locate(el);
      if (locator) this.typeStep(el, locator, false);
      return;
    }
    if (el.localName === 'select') {
      const select = el as HTMLSelectElement;
      const values = Array.from(select.selectedOptions).map((o) =>
        (o.label || o.text).replace(/\s+/g, ' ').trim(),
      );
      const locator = this.locate(el);
      if (locator && values.length)
        this.deps.send({ action: 'select', locator, values, url: this.url() });
    }
  }

  private onFocusIn(e: Event): void {
    const el = targetOf(e);
    const root = el && editableRoot(el);
    if (root && !this.editStart.has(root)) this.editStart.set(root, root.innerText);
  }

  /** A rich-text editor has no change event: its step is what it holds when the user leaves it. */
  private onFocusOut(e: Event): void {
    const el = targetOf(e);
    const root = el && editableRoot(el);
    if (!root) return;
    const before = this.editStart.get(root);
    this.editStart.delete(root);
    const text = root.innerText.replace(/\n$/, '');
    if (before === undefined || text === before.replace(/\n$/, '')) return;
    const locator = this.locate(root);
    if (locator) this.deps.send({ action: 'type', locator, text, submit: false, url: this.url() });
  }

  private showIndicator(label: string | undefined): void {
    if (!label) {
      if (this.indicator) this.deps.owned.delete(this.indicator);
      this.indicator?.remove();
      this.indicator = null;
      return;
    }
    if (this.indicator?.isConnected) return;
    const doc = this.deps.win.document;
    const host = doc.createElement('keel-recording');
    const shadow = host.attachShadow({ mode: 'closed' });
    const badge = doc.createElement('div');
    badge.setAttribute('role', 'status');
    badge.textContent = `● ${label}`;
    badge.style.cssText =
      'position:fixed;right:12px;bottom:12px;z-index:2147483647;padding:6px 10px;border-radius:6px;' +
      'background:#b3261e;color:#fff;font:600 12px/1.3 system-ui,sans-serif;pointer-events:none;' +
      'box-shadow:0 1px 4px rgba(0,0,0,.3)';
    shadow.append(badge);
    (doc.body ?? doc.documentElement).append(host);
    this.deps.owned.add(host);
    this.indicator = host;
  }
}

/**
 * Wires a Recorder to the worker: arms and disarms on its message (only from the worker: `trusted`),
 * sends steps while armed over a Port. The Port is opened when armed and re-opened when the worker
 * stops (Chrome may stop it at any time): re-opening wakes it, so a step the user takes later
 * finds a worker that is running, not one a dying page would have to start. Runs in every frame;
 * the indicator shows in the top one.
 */
export function listenForRecording(
  deps: Omit<RecorderDeps, 'send'>,
  alive: () => boolean,
  trusted: (sender: chrome.runtime.MessageSender) => boolean,
): Recorder {
  let port: chrome.runtime.Port | null = null;
  const connect = (): chrome.runtime.Port | null => {
    if (port || !alive()) return port;
    try {
      const p = chrome.runtime.connect({ name: RECORD_PORT });
      p.onDisconnect.addListener(() => {
        if (port === p) port = null;
        // The worker stopped: reconnect (waking it) while this document is still recording.
        setTimeout(() => {
          if (recorder.armed && alive()) connect();
        }, 100);
      });
      port = p;
    } catch {
      port = null;
    }
    return port;
  };
  const recorder = new Recorder({
    ...deps,
    send: (step) => {
      const recordingId = recorder.armed;
      if (!recordingId || !alive()) return;
      try {
        connect()?.postMessage({ kind: RECORD_STEP_MESSAGE, recordingId, step });
      } catch {
        // The Port closed under us: the next step reconnects.
        port = null;
      }
    },
  });
  chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse) => {
    const m = message as { kind?: unknown; recordingId?: unknown; label?: unknown } | null;
    if (m?.kind !== RECORD_ARM_MESSAGE || !trusted(sender)) return false;
    const id = typeof m.recordingId === 'string' ? m.recordingId.slice(0, 64) : null;
    recorder.arm(id, typeof m.label === 'string' ? m.label.slice(0, 80) : undefined);
    if (id) connect();
    else {
      const p = port;
      port = null;
      p?.disconnect();
    }
    sendResponse(true);
    return false;
  });
  return recorder;
}
