/**
 * Talks to the content script of one frame: wraps requests in the page envelope, injects the
 * script on demand (tabs opened before install, pages whose script was orphaned by an update),
 * and turns the page's error replies into errors the model can act on.
 *
 * It also remembers, per (tab, frame), the document a model's refs came from (`docId` of the
 * last snapshot or find). Requests that use refs carry it, so a ref from a previous page is
 * reported stale instead of hitting whatever got the same number on the new page. The record
 * survives service-worker restarts (session storage).
 *
 * And it remembers the highest ref number each (tab, frame) has handed out, across documents,
 * and sends it with every request (`refBase`): a new document numbers its refs above it. Without
 * that, once the model looked at a new page (its docId now remembered), an old page's `e1`
 * would name whatever the new page numbered `e1` — a click on the wrong element.
 */
import type { PageErrorCode, PageRequest, PageResponse } from '../../protocol/page-messages';
import { HostError, type BrowserHost } from './host';
import { staleRefMessage } from './refs';

export const PAGE_CHANNEL = 'keel.page.v1';

export class PageCallError extends Error {
  constructor(
    readonly code: PageErrorCode | 'no_content_script',
    message: string,
  ) {
    super(message);
    this.name = 'PageCallError';
  }
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The model-facing ref, for a stale-ref message the model recognizes. */
  modelRef?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export class PageClient {
  private readonly docs = new Map<string, string>();
  private readonly refHighs = new Map<string, number>();

  constructor(private readonly host: BrowserHost) {
    host.onTabRemoved((tabId) => {
      for (const key of this.docs.keys()) if (key.startsWith(`${tabId}:`)) this.docs.delete(key);
      for (const key of this.refHighs.keys())
        if (key.startsWith(`${tabId}:`)) this.refHighs.delete(key);
    });
  }

  async call<R>(
    tabId: number,
    frameId: number,
    request: PageRequest,
    opts: CallOptions = {},
  ): Promise<R> {
    const key = this.key(tabId, frameId);
    const refBase = await this.refHighOf(key);
    const envelope = { channel: PAGE_CHANNEL, request, ...(refBase > 0 ? { refBase } : {}) };
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let reply: unknown;
    try {
      reply = await this.host.sendToFrame(tabId, frameId, envelope, {
        timeoutMs,
        signal: opts.signal,
      });
    } catch (e) {
      if (!(e instanceof HostError) || e.code !== 'no_receiver') throw e;
      await this.inject(tabId, frameId);
      reply = await this.host.sendToFrame(tabId, frameId, envelope, {
        timeoutMs,
        signal: opts.signal,
      });
    }
    if (isPageResponse(reply) && typeof reply.refHigh === 'number' && reply.refHigh > refBase)
      await this.noteRefHigh(key, reply.refHigh);
    return this.unwrap<R>(reply, opts.modelRef);
  }

  private async refHighOf(key: string): Promise<number> {
    const known = this.refHighs.get(key);
    if (known !== undefined) return known;
    const stored = await this.host
      .sessionGet<number>(`keel.browser.refs.${key}`)
      .catch(() => undefined);
    const high = typeof stored === 'number' ? stored : 0;
    this.refHighs.set(key, Math.max(high, this.refHighs.get(key) ?? 0));
    return this.refHighs.get(key) ?? 0;
  }

  private async noteRefHigh(key: string, high: number): Promise<void> {
    if (high <= (this.refHighs.get(key) ?? 0)) return;
    this.refHighs.set(key, high);
    await this.host.sessionSet(`keel.browser.refs.${key}`, high).catch(() => undefined);
  }

  private async inject(tabId: number, frameId: number): Promise<void> {
    try {
      await this.host.injectContentScript(tabId, frameId);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new PageCallError(
        'no_content_script',
        `Cannot reach this page's content (${why}). The page may be restricted or still loading; wait and retry, or use browser_screenshot.`,
      );
    }
  }

  private unwrap<R>(reply: unknown, modelRef: string | undefined): R {
    if (!isPageResponse(reply)) {
      throw new PageCallError(
        'failed',
        'The page did not answer (the frame may have navigated). Take a new browser_snapshot.',
      );
    }
    if (reply.ok) return reply.result as R;
    const { code, message } = reply.error;
    if (code === 'stale_ref') throw new PageCallError(code, staleRefMessage(modelRef ?? 'ref'));
    const text = modelRef
      ? message.replace(
          /\b(Element )?(e\d+)\b/,
          (_m, el: string | undefined) => `${el ?? ''}${modelRef}`,
        )
      : message;
    throw new PageCallError(code, text);
  }

  // --- the document refs came from ----------------------------------------------------------

  private key(tabId: number, frameId: number): string {
    return `${tabId}:${frameId}`;
  }

  async rememberDoc(tabId: number, frameId: number, docId: string): Promise<void> {
    const key = this.key(tabId, frameId);
    if (this.docs.get(key) === docId) return;
    this.docs.set(key, docId);
    await this.host.sessionSet(`keel.browser.doc.${key}`, docId).catch(() => undefined);
  }

  async docOf(tabId: number, frameId: number): Promise<string | undefined> {
    const key = this.key(tabId, frameId);
    const known = this.docs.get(key);
    if (known) return known;
    const stored = await this.host
      .sessionGet<string>(`keel.browser.doc.${key}`)
      .catch(() => undefined);
    if (stored) this.docs.set(key, stored);
    return stored;
  }
}

function isPageResponse(x: unknown): x is PageResponse {
  if (typeof x !== 'object' || x === null || !('ok' in x)) return false;
  const r = x as { ok: unknown; error?: { code?: unknown; message?: unknown } };
  if (r.ok === true) return true;
  return r.ok === false && typeof r.error?.code === 'string' && typeof r.error.message === 'string';
}
