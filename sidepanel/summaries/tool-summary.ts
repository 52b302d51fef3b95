/**
 * One line naming what a browser tool did ("Typed “2” into Quantity", "Clicked Add to cart",
 * "Opened shop.example/cart") or is asking to do ("Type “buy milk” into New todo, then press
 * Enter"). Pure: the result is a message key and its substitutions, so the same line exists in
 * every locale and a test can check it without a DOM.
 *
 * The target's name comes from the result's `details` (done) or the approval's target (ask): the
 * page's own accessible name, shown as text, never as markup. Unknown tools (MCP, built-ins) get
 * null: their card keeps the tool's label.
 */
import type { MessageKey } from '../i18n';
import {
  clip,
  displayUrl,
  elementLabel,
  elementOf,
  fileNames,
  isSecretField,
  num,
  quotedText,
  rec,
  str,
  strings,
  type Rec,
} from './facts';

/** `done`: a finished call, past tense. `ask`: an approval request, imperative. */
export type Mood = 'done' | 'ask';

export interface SummaryLine {
  key: MessageKey;
  subs: string[];
}

/** What a line is built from, whichever side (result or approval) provided it. */
export interface CallFacts {
  name: string;
  params: unknown;
  /** The element acted on (role and accessible name), when known. */
  element: { role: string; name: string } | null;
  /** The page after the call (done) or the destination (ask). */
  url?: string;
  title?: string;
  /** Typed text went into a password field. */
  secret?: boolean;
  /** Tool-specific facts from `details.info` (matches found, tabs listed). */
  info?: Rec;
}

/** Each kind has an `sum_<kind>` (done) and an `ask_<kind>` (ask) message. */
export const SUMMARY_KINDS = [
  'click',
  'dblclick',
  'rclick',
  'mclick',
  'type',
  'type_submit',
  'open',
  'open_tab',
  'back',
  'close_tab',
  'switch_tab',
  'tabs',
  'read',
  'read_titled',
  'read_text',
  'find',
  'find_none',
  'screenshot',
  'console',
  'console_attached',
  'network',
  'network_attached',
  'network_body',
  'scroll_down',
  'scroll_up',
  'scroll_left',
  'scroll_right',
  'scroll_top',
  'scroll_bottom',
  'scroll_text',
  'scroll_into',
  'hover',
  'select',
  'press',
  'press_in',
  'keyboard_text',
  'keyboard_both',
  'move',
  'drag',
  'dialog_accept',
  'dialog_answer',
  'dialog_dismiss',
  'upload',
  'wait_text',
  'wait_text_gone',
  'wait_ref',
  'wait_ref_gone',
  'wait_nav',
  'wait_network',
  'wait_quiet',
  'wait_time',
] as const;
export type SummaryKind = (typeof SUMMARY_KINDS)[number];

const line = (mood: Mood, kind: SummaryKind, ...subs: string[]): SummaryLine => ({
  key: `${mood === 'done' ? 'sum' : 'ask'}_${kind}` as MessageKey,
  subs,
});

const point = (x: unknown, y: unknown): string | null => {
  const px = num(x);
  const py = num(y);
  return px !== undefined && py !== undefined ? `(${Math.round(px)}, ${Math.round(py)})` : null;
};

const SCROLL: Record<string, SummaryKind> = {
  down: 'scroll_down',
  up: 'scroll_up',
  left: 'scroll_left',
  right: 'scroll_right',
  top: 'scroll_top',
  bottom: 'scroll_bottom',
};

const WAIT: Record<string, SummaryKind> = {
  text: 'wait_text',
  text_gone: 'wait_text_gone',
  ref_visible: 'wait_ref',
  ref_gone: 'wait_ref_gone',
  navigation: 'wait_nav',
  network_idle: 'wait_network',
  dom_quiet: 'wait_quiet',
  time: 'wait_time',
};

/** The line for one call, or null when the tool is not one this panel knows how to word. */
export function describeCall(mood: Mood, facts: CallFacts): SummaryLine | null {
  const p = rec(facts.params);
  const target = elementLabel(facts.element, p.ref);
  const url = facts.url ?? str(p.url);
  switch (facts.name) {
    case 'browser_click': {
      const kind =
        p.doubleClick === true
          ? 'dblclick'
          : p.button === 'right'
            ? 'rclick'
            : p.button === 'middle'
              ? 'mclick'
              : 'click';
      return line(mood, kind, target ?? '?');
    }
    case 'browser_type': {
      const text = quotedText(str(p.text) ?? '', facts.secret === true);
      return line(mood, p.submit === true ? 'type_submit' : 'type', text, target ?? '?');
    }
    case 'browser_navigate':
      return url ? line(mood, 'open', displayUrl(url)) : null;
    case 'browser_tab_open':
      return url ? line(mood, 'open_tab', displayUrl(url)) : null;
    case 'browser_go_back':
      return mood === 'done' && url ? line(mood, 'back', displayUrl(url)) : line('ask', 'back');
    case 'browser_tab_close':
    case 'browser_tab_switch': {
      const which = facts.title
        ? clip(facts.title, 48)
        : url
          ? displayUrl(url)
          : num(p.tabId) !== undefined
            ? `#${num(p.tabId)}`
            : '?';
      return line(mood, facts.name === 'browser_tab_close' ? 'close_tab' : 'switch_tab', which);
    }
    case 'browser_tabs':
      return line(
        mood,
        'tabs',
        String(Array.isArray(facts.info?.tabs) ? facts.info.tabs.length : ''),
      );
    case 'browser_snapshot':
      return mood === 'done' && facts.title
        ? line(mood, 'read_titled', clip(facts.title, 48))
        : line(mood, 'read');
    case 'browser_get_text':
      return line(mood, 'read_text');
    case 'browser_find': {
      const query = clip(str(p.query) ?? '', 40);
      const total = num(facts.info?.total);
      if (mood === 'done' && total === 0) return line(mood, 'find_none', query);
      return line(mood, 'find', query, total !== undefined ? String(total) : '');
    }
    case 'browser_screenshot':
      return line(mood, 'screenshot');
    case 'browser_console':
    case 'browser_network': {
      const what = facts.name === 'browser_console' ? 'console' : 'network';
      const body = str(p.bodyOf);
      if (what === 'network' && body) return line(mood, 'network_body', clip(body, 40));
      // Attaching the debugger shows Chrome's bar: the card says it was Keel, and why.
      const attached = facts.info?.debuggerAttached === true;
      return line(mood, attached ? `${what}_attached` : what, String(num(facts.info?.total) ?? ''));
    }
    case 'browser_scroll': {
      const text = str(p.text);
      if (text) return line(mood, 'scroll_text', clip(text, 40));
      const dir = SCROLL[str(p.direction) ?? ''];
      if (dir) return line(mood, dir);
      return line(mood, 'scroll_into', target ?? '?');
    }
    case 'browser_hover':
      return line(mood, 'hover', target ?? '?');
    case 'browser_select':
      return line(mood, 'select', clip(strings(p.values).join(', '), 40), target ?? '?');
    case 'browser_press_key': {
      const key = str(p.key) ?? '?';
      return target ? line(mood, 'press_in', key, target) : line(mood, 'press', key);
    }
    case 'browser_keyboard': {
      const text = str(p.text);
      const keys = strings(p.keys).join(' ');
      if (text && keys)
        return line(mood, 'keyboard_both', quotedText(text, facts.secret === true), keys);
      if (text) return line(mood, 'keyboard_text', quotedText(text, facts.secret === true));
      return keys ? line(mood, 'press', keys) : null;
    }
    case 'browser_mouse': {
      const at = target ?? point(p.x, p.y) ?? '?';
      const action = str(p.action);
      if (action === 'move') return line(mood, 'move', at);
      if (action === 'drag')
        return line(mood, 'drag', at, str(p.toRef) ?? point(p.toX, p.toY) ?? '?');
      return line(
        mood,
        action === 'double_click' ? 'dblclick' : action === 'right_click' ? 'rclick' : 'click',
        at,
      );
    }
    case 'browser_dialog': {
      const answer = str(p.promptText);
      if (p.action === 'dismiss') return line(mood, 'dialog_dismiss');
      return answer ? line(mood, 'dialog_answer', clip(answer, 40)) : line(mood, 'dialog_accept');
    }
    case 'browser_upload_file':
      return line(mood, 'upload', clip(fileNames(p).join(', '), 48), target ?? '?');
    case 'browser_wait_for': {
      const kind = WAIT[str(p.condition) ?? ''];
      if (!kind) return null;
      if (kind === 'wait_text' || kind === 'wait_text_gone')
        return line(mood, kind, clip(str(p.text) ?? '', 40));
      if (kind === 'wait_ref' || kind === 'wait_ref_gone') return line(mood, kind, target ?? '?');
      if (kind === 'wait_time') return line(mood, kind, String(num(p.timeoutSeconds) ?? 10));
      return line(mood, kind);
    }
    default:
      return null;
  }
}

/** The past-tense line of a finished call: only for a result that succeeded. */
export function toolSummary(
  call: { name: string; params: unknown },
  result: { ok: boolean; details?: unknown } | undefined,
): SummaryLine | null {
  if (!result?.ok) return null;
  const d = rec(result.details);
  return describeCall('done', {
    name: call.name,
    params: call.params,
    element: elementOf(d),
    url: str(d.urlAfter) ?? str(d.urlBefore),
    title: str(d.title),
    secret: isSecretField(d),
    info: rec(d.info),
  });
}
