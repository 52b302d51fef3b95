/**
 * The one-line summary a recording frame carries ("Clicked “Add to cart”", "Typed “••••” into
 * Password"). Pure. It is stored with the frame and drawn into exported GIFs and videos, so what
 * could carry a secret never reaches it: text typed into a password field is masked, and every
 * stored site secret's value is replaced by its placeholder, whatever field it went into.
 */
import { redactDeep, redactSecrets } from '../../../secrets/site-secrets';
import type { BrowserToolDetails } from '../details';

export interface FrameSummaryInput {
  tool: string;
  /** The tool's UI label ("Click"): the fallback wording. */
  label: string;
  params: unknown;
  details: BrowserToolDetails | undefined;
  /** Every stored site secret (secret-redaction.ts `knownValues`). */
  secrets: readonly { placeholder: string; value: string }[];
}

export const SUMMARY_MAX = 160;
const NAME_MAX = 48;
const TEXT_MAX = 40;

const clip = (s: string, n: number) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

/** A password field, as its snapshot line marks it (the same test as the panel's card). */
export function isPasswordField(details: BrowserToolDetails | undefined): boolean {
  return /\[type=password\]/.test(details?.element ?? '');
}

export function frameSummary(input: FrameSummaryInput): string {
  // Redacted before anything is clipped: a clipped value would no longer match its secret.
  const params = redactDeep(input.params, input.secrets);
  const p = (params && typeof params === 'object' ? params : {}) as Record<string, unknown>;
  const d = input.details && redactDeep(input.details, input.secrets);
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);
  const name = d?.target?.name.trim()
    ? `“${clip(d.target.name, NAME_MAX)}”`
    : (d?.target?.role ?? str(p.ref) ?? '');
  const secret = isPasswordField(d);
  const quoted = (v: unknown) => {
    const text = str(v) ?? '';
    return `“${secret ? '•'.repeat(Math.min(8, Math.max(4, text.length))) : clip(text, TEXT_MAX)}”`;
  };
  const on = name ? ` ${name}` : '';
  let line: string;
  switch (input.tool) {
    case 'browser_click':
    case 'browser_mouse':
      line = `${p.action === 'move' ? 'Moved to' : p.action === 'drag' ? 'Dragged' : p.doubleClick === true || p.action === 'double_click' ? 'Double-clicked' : 'Clicked'}${on}`;
      break;
    case 'browser_type':
      line = `Typed ${quoted(p.text)}${name ? ` into ${name}` : ''}${p.submit === true ? ', then pressed Enter' : ''}`;
      break;
    case 'browser_keyboard':
      line = str(p.text)
        ? `Typed ${quoted(p.text)}`
        : `Pressed ${clip(String(p.keys ?? ''), TEXT_MAX)}`;
      break;
    case 'browser_select':
      line = `Selected ${clip(Array.isArray(p.values) ? p.values.join(', ') : '', TEXT_MAX)}${name ? ` in ${name}` : ''}`;
      break;
    case 'browser_press_key':
      line = `Pressed ${clip(str(p.key) ?? '?', TEXT_MAX)}${name ? ` in ${name}` : ''}`;
      break;
    case 'browser_navigate':
    case 'browser_tab_open':
    case 'browser_go_back':
      line = `${input.tool === 'browser_go_back' ? 'Went back to' : 'Opened'} ${clip(d?.urlAfter ?? str(p.url) ?? '', 80)}`;
      break;
    case 'browser_hover':
      line = `Hovered${on}`;
      break;
    case 'browser_scroll':
      line = `Scrolled${str(p.direction) ? ` ${p.direction}` : on}`;
      break;
    default:
      line = `${input.label}${on}`;
  }
  return clip(redactSecrets(line, input.secrets), SUMMARY_MAX);
}
