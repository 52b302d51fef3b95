/**
 * The page side of the browser tools: one per document. It validates a request, runs it, and
 * answers with a `PageResponse`. The transport is the caller's business (chrome.runtime
 * messages in the extension, a direct call from tests and the benchmark).
 *
 * Actions answer *before* they dispatch their events: a click that opens alert() blocks this
 * thread until the dialog closes, and the service worker must hear back first. The deferred part
 * runs on the next task; the `settle` request that follows waits for it, then for a quiet DOM.
 */
import { AgentContext } from './agent-context';
import { resourceTiming } from './resource-timing';
import { ChangeTracker } from './actions/change-tracker';
import {
  click,
  focus,
  hover,
  locate,
  locateFrame,
  mark,
  unmark,
  type Deferred,
} from './actions/pointer';
import { pressKey } from './actions/keys';
import { focusedReceiver, receiverAt } from './actions/receiver';
import { installInputGuard } from './input-guard';
import { describeAt, describeFocused } from './actions/risk';
import { scroll } from './actions/scroll';
import { selectOptions } from './actions/select';
import { settle, waitFor } from './actions/settle';
import { setFiles } from './actions/files';
import { typeText } from './actions/typing';
import type { PageEnv } from './env';
import { find } from './find';
import { Highlighter } from './highlight';
import { PageRequest, type PageResponse, type SnapshotResult } from '../src/protocol/page-messages';
import { PageError } from './page-error';
import { readableText } from './readable-text';
import { secretBoxes } from './secret-boxes';
import { RefRegistry } from './refs';
import { Snapshotter } from './snapshot/snapshotter';
import type { OutlineLine } from './snapshot/outline-lines';
import { RECORDING_SNAPSHOT } from './recorder';

export interface PageAgent {
  readonly docId: string;
  /** `refBase`: continue ref numbers above it (the envelope's field; see RefRegistry.skipTo). */
  handle(raw: unknown, opts?: { refBase?: number }): Promise<PageResponse>;
  /** The ref an element carries, if it was given one (tests and the benchmark check coverage). */
  refOf(el: Element): string | undefined;
  /** The whole document as structured lines, refs assigned (recording.ts locates steps in it). */
  outline(): { url: string; title: string; lines: OutlineLine[] };
  /** Keel's own elements on the page (highlights, the recording indicator): snapshots skip them. */
  readonly owned: Set<Element>;
}

export function newDocId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function createPageAgent(env: PageEnv, docId: string = newDocId()): PageAgent {
  const registry = new RefRegistry(docId);
  const highlighter = new Highlighter(env.win.document);
  const ctx = new AgentContext(env, registry, highlighter);
  const snapshotter = new Snapshotter(env, registry, highlighter.owned);

  /** Starts tracking changes, then schedules the action's events for after the reply. */
  const defer = <R>(d: Deferred<R>): R => {
    ctx.tracker?.stop();
    ctx.refused = undefined;
    ctx.tracker = new ChangeTracker(env.win.document, env.now, highlighter.owned, d.doc, (el) =>
      env.shadowRootOf(el),
    );
    const run = d.run;
    if (run) {
      ctx.pending = new Promise<void>((resolve) => {
        // An action may take several tasks (typing yields between keys, as real typing does).
        setTimeout(() => {
          Promise.resolve()
            .then(run)
            .catch((e: unknown) => {
              // A deliberate refusal is the action's outcome (settle reports it); anything
              // else the page threw at its own handlers is the page's business.
              if (e instanceof PageError) ctx.refused = e.message;
            })
            .finally(resolve);
        }, 0);
      });
    }
    return d.result;
  };

  const run = async (req: PageRequest): Promise<unknown> => {
    switch (req.op) {
      case 'ping':
        return {
          docId,
          url: env.win.location.href,
          title: env.win.document.title,
          readyState: env.win.document.readyState,
        };
      case 'snapshot': {
        ctx.refPrefix = req.refPrefix;
        const out = snapshotter.take(req);
        const result: SnapshotResult = {
          docId,
          url: env.win.location.href,
          title: env.win.document.title,
          ...out,
        };
        return result;
      }
      case 'get_text':
        return {
          docId,
          url: env.win.location.href,
          ...readableText(env.win.document, req.maxChars, req.offset),
        };
      case 'resource_timing':
        return resourceTiming(env.win, req.limit);
      case 'find':
        ctx.refPrefix = req.refPrefix;
        return find(ctx, req.query, req.kind, req.role, req.limit);
      case 'describe':
        return {
          docId,
          url: env.win.location.href,
          element: ctx.report(ctx.resolve(req.ref, req.docId)),
        };
      case 'describe_focused':
        return describeFocused(ctx);
      case 'describe_at':
        return describeAt(ctx, req.x, req.y);
      case 'receiver_at':
        return receiverAt(ctx, req.x, req.y);
      case 'receiver_focused':
        return focusedReceiver(ctx);
      // The guard is normally installed at document_start by its own script; a page that loaded
      // before Keel did gets it now (its listeners then follow the page's, and still cancel).
      case 'guard_arm':
        return installInputGuard(env.win).arm(req);
      case 'guard_disarm':
        return installInputGuard(env.win).disarm(req.token);
      case 'locate':
        return locate(ctx, req.ref, req.docId);
      case 'track':
        // Trusted input is sent by the service worker through CDP, outside this page's reach:
        // the changes the page makes while handling it are counted from before it is sent.
        ctx.tracker?.stop();
        ctx.refused = undefined;
        ctx.tracker = new ChangeTracker(
          env.win.document,
          env.now,
          highlighter.owned,
          undefined,
          (el) => env.shadowRootOf(el),
        );
        return { docId };
      case 'locate_frame':
        return locateFrame(ctx, req.url, req.width, req.height);
      case 'secret_boxes':
        return secretBoxes(env.win);
      case 'history_back':
        // history.back() from the page goes to the exact previous entry; the browser's Back
        // (tabs.goBack) skips entries created without a user gesture, which is every entry an
        // agent creates with synthetic clicks.
        setTimeout(() => env.win.history.back(), 0);
        return { docId, url: env.win.location.href, length: env.win.history.length };
      case 'click':
        return defer(
          click(ctx, req.ref, req.docId, req.button, req.clickCount, req.modifiers, req.force),
        );
      case 'type':
        // A site secret goes only into a document of its own site: checked here, where the
        // value is typed, whatever the model, the ref or the Gatekeeper's prediction said.
        if (req.origin !== undefined && env.win.location.origin !== req.origin)
          throw new PageError(
            'not_actionable',
            `This field is on ${env.win.location.origin}, but the secret belongs to ${req.origin}: a secret is typed only into its own site's fields. Nothing was typed.`,
          );
        return defer(typeText(ctx, req.ref, req.docId, req.text, req.clear, req.submit));
      case 'select':
        return defer(selectOptions(ctx, req.ref, req.docId, req.values));
      case 'press_key':
        return defer(pressKey(ctx, req.key, req.modifiers, req.ref, req.docId));
      case 'hover':
        return defer(hover(ctx, req.ref, req.docId));
      case 'focus':
        return defer(focus(ctx, req.ref, req.docId));
      case 'scroll':
        return scroll(ctx, req);
      case 'settle':
        return settle(ctx, req.quietMs, req.timeoutMs, req.ref, req.docId);
      case 'wait_for':
        return waitFor(ctx, req.condition, req.text, req.ref, req.docId, req.timeoutMs);
      case 'set_files':
        return defer(setFiles(ctx, req.ref, req.docId, req.files));
      case 'mark':
        return mark(ctx, req.ref, req.docId, req.token);
      case 'unmark':
        return unmark(ctx, req.token);
      case 'highlight': {
        const el = ctx.resolve(req.ref, req.docId);
        highlighter.show(el.getBoundingClientRect(), req.label);
        return { docId };
      }
    }
  };

  return {
    docId,
    refOf: (el) => registry.peek(el),
    owned: highlighter.owned,
    outline() {
      const out = snapshotter.take(RECORDING_SNAPSHOT);
      return {
        url: env.win.location.href,
        title: env.win.document.title,
        lines: out.outline ?? [],
      };
    },
    async handle(raw, opts) {
      const parsed = PageRequest.safeParse(raw);
      if (!parsed.success) {
        return {
          ok: false,
          error: {
            code: 'bad_request',
            message: `Invalid page request: ${parsed.error.issues[0]?.message ?? 'unknown'}`,
          },
        };
      }
      if (opts?.refBase !== undefined) registry.skipTo(opts.refBase);
      try {
        const result = await run(parsed.data);
        return { ok: true, result, refHigh: registry.high };
      } catch (e) {
        if (e instanceof PageError)
          return { ok: false, error: { code: e.code, message: e.message }, refHigh: registry.high };
        return {
          ok: false,
          error: { code: 'failed', message: e instanceof Error ? e.message : String(e) },
          refHigh: registry.high,
        };
      }
    },
  };
}
