/**
 * The shape every acting tool shares: perform the action, wait for the page to settle (bounded:
 * DOM quiet, or a navigation committing and loading), and return a short account of what
 * changed — navigation, new tabs, dialogs that appeared, the element's new state — with
 * page-derived parts inside the untrusted block.
 *
 * The account is built from what the page reports after the action; when the page cannot answer
 * (it navigated away, or a JavaScript dialog blocks it) the tab's state tells what happened.
 */
import type { ElementReport, SettleResult } from '../../protocol/page-messages';
import type { HeldEffect, ToolResult } from '../types';
import type { BrowserToolDetails } from './details';
import { HostError, type BrowserHost, type TabInfo } from './host';
import { PageCallError, type PageClient } from './page-client';
import type { OpenDialog } from './debugger-sessions';
import {
  armDialogGuard,
  collectGuardedDialogs,
  describeGuarded,
  type GuardedDialog,
} from './dialogs/dialog-guard';
import { waitForTabLoad, waitForUrlChange } from './tab-waits';
import { clipPageString } from './page-strings';
import { getTabOrThrow } from './target';
import type { ActionPictures } from './task-frames/action-pictures';
import { UNTRUSTED_NOTE, untrustedPageContent } from './untrusted';

export interface ActionDeps {
  host: BrowserHost;
  client: PageClient;
  /** Where the picture of the settled page goes (requested before the result returns, never waited for); none without it. */
  pictures?: ActionPictures;
}

export interface PerformedAction {
  element?: ElementReport;
  note?: string;
  /** The acting frame's URL before the action (frames other than the top have their own). */
  url?: string;
  /**
   * The receiver check stopped the input before an event (input-receiver.ts). With `partial`
   * unset nothing reached the page and the result is just the hold; otherwise what did reach it
   * is settled and reported as usual, and the hold goes with it.
   */
  held?: HeldEffect;
}

export interface ActionSpec {
  tabId: number;
  frameId: number;
  /** The element, for its state after the action. */
  localRef?: string;
  modelRef?: string;
  docId?: string;
  /** "Clicked", "Typed into"… */
  verb: string;
  perform(): Promise<PerformedAction>;
  /** With the debugger attached, the JavaScript dialog the action opened (known without waiting). */
  dialogProbe?: () => OpenDialog | undefined;
  /** Synthetic input: answer dialogs at once instead of blocking the page (dialog-guard.ts). */
  guardDialogs?: boolean;
  /**
   * Trusted input (CDP): the page starts counting changes before `perform` sends it, so what the
   * page does while handling the input is reported (a drop that reorders a list), not missed.
   */
  trackBeforeInput?: boolean;
}

type Settled =
  | { kind: 'settled'; result: SettleResult }
  | { kind: 'navigated'; tab: TabInfo | undefined; stillLoading: boolean; destination?: string }
  | { kind: 'dialog'; dialog: OpenDialog }
  | { kind: 'unresponsive' };

/** The width of the thumbnail after an action (a recording's frames are the same size). */
export const THUMBNAIL_MAX_WIDTH = 400;

const SETTLE_QUIET_MS = 200;
const SETTLE_MAX_MS = 2500;
const NAVIGATION_LOAD_MS = 8000;

export async function runPageAction(
  deps: ActionDeps,
  spec: ActionSpec,
  signal: AbortSignal,
): Promise<ToolResult<BrowserToolDetails>> {
  const { host } = deps;
  const timing = phaseClock(host);
  const before = await getTabOrThrow(host, spec.tabId);
  const opened: TabInfo[] = [];
  const stopWatching = host.onTabCreated((t) => {
    if (t.openerTabId === spec.tabId) opened.push(t);
  });
  try {
    const guarded = spec.guardDialogs
      ? await armDialogGuard(host, spec.tabId, spec.frameId)
      : false;
    if (spec.trackBeforeInput)
      await deps.client
        .call(spec.tabId, spec.frameId, { op: 'track' }, { timeoutMs: 1500, signal })
        .catch(() => undefined);
    timing.lap('prepare');
    const performed = await spec.perform();
    timing.lap('act');
    if (performed.held && !performed.held.partial)
      return {
        content: [
          { type: 'text', text: `Not done: ${performed.held.what}. Keel asks the user first.` },
        ],
        held: performed.held,
      };
    const settled = await settleAfter(deps, spec, before, signal);
    timing.lap('settle');
    if (settled.kind === 'settled' || settled.kind === 'navigated')
      requestPicture(deps, spec.tabId);
    const dialogs =
      guarded && settled.kind === 'settled'
        ? await collectGuardedDialogs(host, spec.tabId, spec.frameId)
        : [];
    const after =
      settled.kind === 'navigated' && settled.tab
        ? settled.tab
        : await host.getTab(spec.tabId).catch(() => undefined);
    const result = compose(spec, before, after, performed, settled, opened, dialogs);
    timing.lap('report');
    if (result.details) result.details.timing = timing.phases;
    return performed.held ? { ...result, held: performed.held } : result;
  } finally {
    stopWatching();
  }
}

/**
 * The picture of the settled page, for the recording: requested now, before the result returns
 * (so it shows what the result describes), and taken off the step's path. It used to be awaited
 * here as the tool card's thumbnail: a capture and a resize cost 200–1,000 ms per action on a
 * loaded machine, 40 % of Keel's wall time in the peer benchmark (docs/benchmarks.md).
 */
function requestPicture(deps: ActionDeps, tabId: number): void {
  const { pictures, host } = deps;
  if (!pictures) return;
  pictures.put(
    tabId,
    host.getTab(tabId).then((tab) => {
      if (!tab.active) throw new Error('not the visible tab');
      return host.captureVisibleTab(tab.windowId, {
        format: 'jpeg',
        quality: 50,
        maxWidth: THUMBNAIL_MAX_WIDTH,
        bestEffort: true,
      });
    }),
  );
}

/** Laps of the host's clock, by phase name (`details.timing`). */
function phaseClock(host: BrowserHost) {
  const phases: Record<string, number> = {};
  let last = host.now();
  return {
    phases,
    lap(name: string): void {
      const t = host.now();
      phases[name] = (phases[name] ?? 0) + (t - last);
      last = t;
    },
  };
}

async function settleAfter(
  deps: ActionDeps,
  spec: ActionSpec,
  before: TabInfo,
  signal: AbortSignal,
): Promise<Settled> {
  const probe = spec.dialogProbe;
  if (!probe) return settleThroughPage(deps, spec, before, signal);
  // A dialog blocks the page: watch for it instead of waiting for a reply that cannot come.
  let stop = false;
  const watch = (async (): Promise<Settled | null> => {
    while (!stop) {
      const dialog = probe();
      if (dialog) return { kind: 'dialog', dialog };
      await deps.host.sleep(100, signal).catch(() => undefined);
      if (signal.aborted) return null;
    }
    return null;
  })();
  const settled = settleThroughPage(deps, spec, before, signal).then((s) => {
    const dialog = probe();
    return dialog ? ({ kind: 'dialog', dialog } as Settled) : s;
  });
  try {
    const first = await Promise.race([settled, watch.then((w) => w ?? settled)]);
    return first;
  } finally {
    stop = true;
    settled.catch(() => undefined);
  }
}

async function settleThroughPage(
  deps: ActionDeps,
  spec: ActionSpec,
  before: TabInfo,
  signal: AbortSignal,
): Promise<Settled> {
  try {
    const result = await deps.client.call<SettleResult>(
      spec.tabId,
      spec.frameId,
      {
        op: 'settle',
        quietMs: SETTLE_QUIET_MS,
        timeoutMs: SETTLE_MAX_MS,
        ref: spec.localRef,
        docId: spec.docId,
      },
      { timeoutMs: SETTLE_MAX_MS + 1500, signal },
    );
    // The page is quiet but a navigation it started has not committed (a slow server): the
    // action's effect is that navigation, so wait for it rather than report "no change".
    if (result.navigating) {
      const navigated = await waitForNavigation(deps.host, spec, before, signal);
      return navigated.kind === 'navigated'
        ? { ...navigated, destination: result.navigating }
        : navigated;
    }
    return { kind: 'settled', result };
  } catch (e) {
    if (signal.aborted) throw new Error('Interrupted.');
    const gone =
      (e instanceof HostError &&
        (e.code === 'port_closed' || e.code === 'no_receiver' || e.code === 'no_frame')) ||
      (e instanceof PageCallError && (e.code === 'no_content_script' || e.code === 'failed'));
    if (gone) return waitForNavigation(deps.host, spec, before, signal);
    if (e instanceof HostError && e.code === 'timeout') {
      const tab = await deps.host.getTab(spec.tabId).catch(() => undefined);
      if (tab && (tab.status === 'loading' || tab.url !== before.url))
        return waitForNavigation(deps.host, spec, before, signal);
      return { kind: 'unresponsive' };
    }
    if (e instanceof HostError && e.code === 'no_tab')
      return { kind: 'navigated', tab: undefined, stillLoading: false };
    throw e;
  }
}

async function waitForNavigation(
  host: BrowserHost,
  spec: ActionSpec,
  before: TabInfo,
  signal: AbortSignal,
): Promise<Settled> {
  if (spec.frameId !== 0) {
    return {
      kind: 'navigated',
      tab: await host.getTab(spec.tabId).catch(() => undefined),
      stillLoading: false,
    };
  }
  // The old document is unloading: wait for the new one to commit, then to load.
  const current = await host.getTab(spec.tabId).catch(() => undefined);
  if (current && current.status !== 'loading' && current.url === before.url) {
    await waitForUrlChange(host, spec.tabId, before.url, 1500, signal);
  }
  const loaded = await waitForTabLoad(host, spec.tabId, NAVIGATION_LOAD_MS, signal);
  return { kind: 'navigated', tab: loaded.tab, stillLoading: loaded.timedOut };
}

function compose(
  spec: ActionSpec,
  before: TabInfo,
  after: TabInfo | undefined,
  performed: PerformedAction,
  settled: Settled,
  opened: TabInfo[],
  dialogs: GuardedDialog[],
): ToolResult<BrowserToolDetails> {
  const ref = spec.modelRef ?? '';
  const facts: string[] = [`${spec.verb}${ref ? ` ${ref}` : ''}.`];
  let refused: string | undefined;
  const page: string[] = [];
  if (performed.element) page.push(`element: ${performed.element.line}`);
  if (performed.note) page.push(`done: ${performed.note}`);

  if (settled.kind === 'navigated') {
    if (!after) facts.push('The tab was closed.');
    else if (
      after.url === before.url &&
      settled.destination &&
      settled.destination !== before.url
    ) {
      facts.push(
        `The page is navigating to ${clipPageString(settled.destination)}${settled.stillLoading ? ' (the server has not answered yet: wait with browser_wait_for, then take a new browser_snapshot)' : ''}.`,
      );
    } else if (after.url !== before.url) {
      facts.push(
        `The page navigated: ${clipPageString(before.url)} → ${clipPageString(after.url)}${settled.stillLoading ? ' (still loading)' : ''}.`,
      );
    } else facts.push(`The page reloaded${settled.stillLoading ? ' (still loading)' : ''}.`);
    facts.push('Refs from earlier snapshots are no longer valid: take a new browser_snapshot.');
    if (after?.title) page.push(`new page title: ${clipPageString(after.title)}`);
  } else if (settled.kind === 'dialog') {
    facts.push(
      `A JavaScript ${settled.dialog.type} dialog is open and blocks the page. Use browser_dialog to accept or dismiss it.`,
    );
    page.push(`dialog message: ${clipPageString(settled.dialog.message)}`);
  } else if (settled.kind === 'unresponsive') {
    facts.push(
      'The page stopped responding after the action: a JavaScript dialog (alert, confirm or prompt) is probably open. ' +
        'Use browser_dialog to read and accept or dismiss it.',
    );
  } else {
    const s = settled.result;
    if (s.refused) refused = s.refused;
    const urlBefore = performed.url ?? (spec.frameId === 0 ? before.url : s.url);
    if (s.url !== urlBefore)
      facts.push(
        `The URL changed to ${clipPageString(s.url)} (same document: the app updated the page).`,
      );
    const elementChanged =
      s.element !== undefined &&
      !('gone' in s.element) &&
      s.element.line !== performed.element?.line;
    if (s.mutations > 0) {
      facts.push(
        `The page ${s.quiet ? 'settled' : 'was still changing after 2.5 s'} (${s.mutations} DOM change${s.mutations === 1 ? '' : 's'}).`,
      );
    } else {
      if (elementChanged) facts.push('Only the element changed.');
      else {
        facts.push('No visible change in the page.');
        // Synthetic input (L1) is what some pages ignore: name the trusted fallback.
        if (spec.guardDialogs)
          facts.push(
            'If the page should have reacted, it may ignore synthetic input: browser_mouse or browser_keyboard send trusted input (L2).',
          );
      }
    }
    if (s.element && 'gone' in s.element)
      facts.push(`${ref || 'The element'} is no longer in the page.`);
    else if (s.element && elementChanged) page.push(`element now: ${s.element.line}`);
    for (const a of s.appeared) page.push(`appeared: ${a}`);
  }
  for (const d of dialogs) {
    facts.push(describeGuarded(d));
    page.push(`${d.type} dialog message: ${clipPageString(d.message)}`);
  }
  for (const t of opened)
    facts.push(
      `A new tab opened: tab ${t.tabId} (${clipPageString(t.pendingUrl || t.url) || 'loading'}). Pass tabId ${t.tabId} to act on it.`,
    );

  // The action did not happen after all: say so first, and as an error.
  if (refused) facts[0] = `Not done: ${refused}`;
  const source = (settled.kind === 'settled' ? settled.result.url : after?.url) ?? before.url;
  let text = facts.join(' ');
  if (page.length) text += `\n${UNTRUSTED_NOTE}\n${untrustedPageContent(source, page.join('\n'))}`;

  const details: BrowserToolDetails = {
    tabId: spec.tabId,
    frameId: spec.frameId,
    urlBefore: before.url,
    urlAfter: after?.url ?? before.url,
    title: after?.title,
  };
  const el = performed.element;
  if (el) {
    details.element = el.line;
    details.target = { role: el.role, name: el.name };
    details.highlight = { ...el.box, frameId: spec.frameId };
  }
  return { content: [{ type: 'text', text }], details, ...(refused ? { isError: true } : {}) };
}
