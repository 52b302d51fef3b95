import { z } from 'zod';
import type { AgentTool } from '../../types';
import type { BrowserToolDeps } from '../deps';
import type { BrowserToolDetails } from '../details';
import { HostError } from '../host';
import { PageCallError } from '../page-client';
import { RefParam, TabIdParam } from '../params';
import { parseRef } from '../refs';
import { waitForTabLoad, waitForUrlChange } from '../tab-waits';
import { assertPageAllowed, getTabOrThrow, pageTarget, tabIdFor } from '../target';
import { untrustedPageContent } from '../untrusted';

const Params = z.object({
  condition: z
    .enum([
      'text',
      'text_gone',
      'ref_visible',
      'ref_gone',
      'navigation',
      'network_idle',
      'dom_quiet',
      'time',
    ])
    .describe(
      'text / text_gone: a text appears / disappears; ref_visible / ref_gone: an element shows / goes away; navigation: the URL changes and the page loads; network_idle: no resource finished loading for 500 ms; dom_quiet: the page stops changing; time: just wait.',
    ),
  text: z.string().min(1).max(500).optional(),
  ref: RefParam.optional(),
  timeoutSeconds: z
    .number()
    .positive()
    .max(30)
    .default(10)
    .describe('Give up after this long (max 30 s); for time, how long to wait.'),
  tabId: TabIdParam,
});
type Params = z.infer<typeof Params>;

interface WaitReply {
  met: boolean;
  waitedMs: number;
  detail: string;
}

const PAGE_CONDITION = {
  text: 'text_visible',
  text_gone: 'text_gone',
  ref_visible: 'ref_visible',
  ref_gone: 'ref_gone',
  network_idle: 'network_quiet',
  dom_quiet: 'dom_quiet',
} as const;

/** browser_wait_for: a bounded wait for a condition; not meeting it is a normal result. */
export function waitForTool(deps: BrowserToolDeps): AgentTool<Params, BrowserToolDetails> {
  return {
    name: 'browser_wait_for',
    label: 'Wait',
    description:
      'Wait (bounded, up to 30 s) until a text appears or disappears, an element shows or goes away, the page navigates, the network or the DOM goes quiet, or a time passes. Reports whether the condition was met.',
    onDemand: { brief: 'wait for a text, an element, a navigation or a quiet page' },
    parameters: Params,
    level: 'L1',
    effects: 'read',
    recovery: 'retry-safe',
    resolveTarget: (params, ctx) =>
      pageTarget(deps.host, tabIdFor(params, ctx), params.ref ? parseRef(params.ref).frameId : 0),
    async execute(_id, params, signal, _onUpdate, ctx) {
      const tabId = tabIdFor(params, ctx);
      const timeoutMs = Math.round(params.timeoutSeconds * 1000);
      const tab = await getTabOrThrow(deps.host, tabId);
      const reply = (text: string, met: boolean) => ({
        content: [{ type: 'text' as const, text }],
        details: { tabId, urlAfter: tab.url, info: { met } },
      });
      if (params.condition === 'time') {
        await deps.host.sleep(timeoutMs, signal);
        return reply(`Waited ${params.timeoutSeconds} s.`, true);
      }
      if (params.condition === 'navigation') {
        const changed = await waitForUrlChange(deps.host, tabId, tab.url, timeoutMs, signal);
        if (changed.timedOut)
          return reply(
            `No navigation within ${params.timeoutSeconds} s; still at ${tab.url}.`,
            false,
          );
        const loaded = await waitForTabLoad(deps.host, tabId, timeoutMs, signal);
        return reply(
          `Navigated to ${loaded.tab?.url ?? changed.tab?.url}${loaded.timedOut ? ' (still loading)' : ''}. Take a new browser_snapshot.`,
          true,
        );
      }
      await assertPageAllowed(deps.host, tab);
      if ((params.condition === 'text' || params.condition === 'text_gone') && !params.text)
        throw new Error(`condition ${params.condition} needs text.`);
      if ((params.condition === 'ref_visible' || params.condition === 'ref_gone') && !params.ref)
        throw new Error(`condition ${params.condition} needs ref.`);
      const parsed = params.ref ? parseRef(params.ref) : undefined;
      const frameId = parsed?.frameId ?? 0;
      try {
        const r = await deps.client.call<WaitReply>(
          tabId,
          frameId,
          {
            op: 'wait_for',
            condition: PAGE_CONDITION[params.condition],
            text: params.text,
            ref: parsed?.local,
            docId: parsed ? await deps.client.docOf(tabId, frameId) : undefined,
            timeoutMs,
          },
          { signal, timeoutMs: timeoutMs + 2000 },
        );
        const secs = (r.waitedMs / 1000).toFixed(1);
        const text = r.met ? `Condition met after ${secs} s.` : `Not met after ${secs} s.`;
        return reply(`${text}\n${untrustedPageContent(tab.url, r.detail)}`, r.met);
      } catch (e) {
        const navigated =
          (e instanceof HostError && (e.code === 'port_closed' || e.code === 'no_receiver')) ||
          e instanceof PageCallError;
        if (!navigated || signal.aborted) throw e;
        const loaded = await waitForTabLoad(deps.host, tabId, 5000, signal);
        const gone = params.condition === 'ref_gone' || params.condition === 'text_gone';
        return reply(
          `The page navigated to ${loaded.tab?.url ?? 'another page'} while waiting${gone ? ', so the awaited content is gone' : ''}. Take a new browser_snapshot.`,
          gone,
        );
      }
    },
  };
}
