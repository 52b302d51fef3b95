/**
 * The highlight overlay: a box around the element the agent acts on, so the user sees what is
 * happening. It lives in a closed shadow root (page CSS and scripts cannot restyle or read it),
 * ignores the pointer, and is excluded from snapshots and from change tracking.
 */
import type { Box } from './env';

const SHOW_MS = 1500;

export class Highlighter {
  private host: HTMLElement | null = null;
  private box: HTMLElement | null = null;
  private label: HTMLElement | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Elements the snapshot and the change tracker must ignore. */
  readonly owned = new Set<Element>();

  constructor(private readonly doc: Document) {}

  show(rect: Box, text?: string): void {
    this.ensure();
    if (!this.box || !this.label || !this.host) return;
    Object.assign(this.box.style, {
      left: `${rect.x - 3}px`,
      top: `${rect.y - 3}px`,
      width: `${rect.width + 6}px`,
      height: `${rect.height + 6}px`,
      display: 'block',
    });
    this.label.textContent = text ?? '';
    this.label.style.display = text ? 'block' : 'none';
    if (!this.host.isConnected) this.doc.documentElement.appendChild(this.host);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.hide(), SHOW_MS);
  }

  hide(): void {
    clearTimeout(this.timer);
    if (this.box) this.box.style.display = 'none';
  }

  private ensure(): void {
    if (this.host) return;
    const host = this.doc.createElement('keel-highlight');
    host.setAttribute('aria-hidden', 'true');
    host.style.cssText =
      'all:initial;position:fixed;inset:0;pointer-events:none;z-index:2147483647;';
    const root = host.attachShadow({ mode: 'closed' });
    const box = this.doc.createElement('div');
    box.style.cssText =
      'position:fixed;display:none;box-sizing:border-box;border:2px solid #2563eb;border-radius:4px;' +
      'background:rgba(37,99,235,0.12);box-shadow:0 0 0 2px rgba(255,255,255,0.8);transition:all 120ms ease-out;';
    const label = this.doc.createElement('div');
    label.style.cssText =
      'position:absolute;left:-2px;top:-22px;padding:1px 6px;font:12px/18px system-ui,sans-serif;' +
      'color:#fff;background:#2563eb;border-radius:3px;white-space:nowrap;max-width:320px;overflow:hidden;text-overflow:ellipsis;';
    box.appendChild(label);
    root.appendChild(box);
    this.host = host;
    this.box = box;
    this.label = label;
    this.owned.add(host);
  }
}
