import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApprovalRequest, Decision } from '../../src/protocol';
import { prettyJson } from '../format';
import { messageParts, t, type MessageKey, toolLabel } from '../i18n';
import { safeImageSrc } from '../markdown/url-policy';
import { approvalSummary, frameLine } from '../summaries/approval-summary';
import { Icon } from './icons';
import { usePanel } from './panel-context';

const DECISION_LABEL: Record<Decision, MessageKey> = {
  allow_once: 'approveAllowOnce',
  allow_site: 'approveAllowSite',
  deny: 'approveDeny',
  deny_stop: 'approveDenyStop',
};

const ORDER: Decision[] = ['allow_once', 'allow_site', 'deny', 'deny_stop'];

function Favicon({ url }: { url?: string }) {
  const [broken, setBroken] = useState(false);
  const src =
    url && !broken
      ? url.startsWith('data:')
        ? safeImageSrc(url)
        : safeImageSrc(url.replace(/^http:/, 'https:'))
      : null;
  if (!src) return <Icon name="globe" class="favicon" />;
  return (
    <img
      class="favicon"
      src={src}
      alt=""
      width={16}
      height={16}
      referrerpolicy="no-referrer"
      onError={() => setBroken(true)}
    />
  );
}

/**
 * The approval request (spec/000 §4): what the tool will do, where, with which parameters, and the
 * four decisions. Focus moves here when it appears, but onto the card, not onto a button: a user
 * typing Enter in the composer at that moment must not approve by accident. Escape denies.
 */
export function ApprovalCard({ request }: { request: ApprovalRequest }) {
  const panel = usePanel();
  const ref = useRef<HTMLElement>(null);
  const [pending, setPending] = useState<Decision | null>(null);
  const { target, tool } = request;
  const site = target.origin ?? target.url ?? '';
  // An action in an embedded frame of another site names both: the frame's site is the one judged.
  const inFrame = frameLine(request);
  const place = target.serverId
    ? t('approvalMcpServer', target.serverId)
    : inFrame
      ? t('approvalInFrame', inFrame.page, inFrame.frame)
      : site;
  const titleId = `approval-title-${request.approvalId}`;
  const siteHintId = `approval-site-${request.approvalId}`;
  const options = ORDER.filter((d) => request.options.includes(d));
  const sentence = approvalSummary(request);

  useEffect(() => {
    ref.current?.focus();
  }, [request.approvalId]);

  const decide = async (decision: Decision) => {
    if (pending) return;
    setPending(decision);
    const ok = await panel.respondApproval(request.approvalId, decision);
    if (!ok) setPending(null);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && options.includes('deny')) {
      e.preventDefault();
      e.stopPropagation();
      void decide('deny');
    }
  };

  return (
    <section
      ref={ref}
      class="approval-card"
      tabIndex={-1}
      role="group"
      aria-labelledby={titleId}
      onKeyDown={onKeyDown}
      data-approval-id={request.approvalId}
    >
      <h2 class="approval-title" id={titleId}>
        <Icon name="shield" />
        {t('approvalTitle', toolLabel(tool.name, tool.label))}
      </h2>
      {sentence && (
        <p class="approval-sentence" data-summary-key={sentence.key}>
          <SentenceText summaryKey={sentence.key} subs={sentence.subs} />
        </p>
      )}
      <div class="approval-target">
        <Favicon url={target.favIconUrl} />
        <div class="approval-target-text">
          {target.title && <div class="approval-page-title">{target.title}</div>}
          <div class="approval-origin">{place}</div>
          {target.url && target.url !== place && (
            <div class="approval-url" title={target.url}>
              {target.url}
            </div>
          )}
        </div>
      </div>
      <div class="approval-meta">
        <span class={`badge effects-${tool.effects}`}>
          {tool.effects === 'write' ? t('effectsWrite') : t('effectsRead')}
        </span>
        <span class="badge">{tool.level}</span>
        {tool.pageClaimsReadOnly && (
          <span class="badge page-claim" title={t('pageClaimsReadOnlyHelp')}>
            {t('pageClaimsReadOnly')}
          </span>
        )}
        <code class="approval-tool-name">{tool.name}</code>
      </div>
      {request.reason && <p class="approval-reason">{reasonText(request.reason)}</p>}
      <details class="approval-params" open={sentence ? undefined : true}>
        <summary>{sentence ? t('approvalRawParams') : t('toolParams')}</summary>
        <pre class="tool-pre" tabIndex={0} role="region" aria-label={t('toolParams')}>
          {prettyJson(request.params)}
        </pre>
      </details>
      <div class="approval-actions">
        {options.map((d) => (
          <button
            key={d}
            type="button"
            class={`btn ${d === 'allow_once' ? 'primary' : d === 'deny_stop' ? 'danger' : ''}`}
            disabled={pending !== null}
            aria-describedby={d === 'allow_site' ? siteHintId : undefined}
            data-decision={d}
            onClick={() => void decide(d)}
          >
            {t(DECISION_LABEL[d])}
          </button>
        ))}
      </div>
      {options.includes('allow_site') && (
        <p class="approval-hint" id={siteHintId}>
          {target.serverId
            ? t('approveAllowServerHint', target.serverId)
            : t('approveAllowSiteHint', target.origin ?? place)}
        </p>
      )}
      <p class="approval-keys">{t('approvalKeys')}</p>
    </section>
  );
}

/**
 * The sentence with what was substituted (typed text, element names, addresses) in italics. The
 * substitutions are page text: rendered as text, never as markup.
 */
function SentenceText({ summaryKey, subs }: { summaryKey: MessageKey; subs: string[] }) {
  return (
    <>
      {messageParts(summaryKey, subs).map((p, i) =>
        typeof p === 'string' ? p : p.sub ? <em key={i}>{p.sub}</em> : null,
      )}
    </>
  );
}

/** Known engine reasons get a sentence; anything else is shown as sent. */
function reasonText(reason: string): string {
  if (reason === 'write') return t('reasonWrite');
  if (reason === 'rule_changed') return t('reasonRuleChanged');
  if (reason === 'not_in_plan') return t('reasonNotInPlan');
  // The executor stopped at the moment of effect: the page put another site under the action.
  if (reason.startsWith('held:')) return t('reasonHeld', reason.slice('held:'.length).trim());
  if (reason.startsWith('always_ask')) {
    // The detail (what makes it sensitive: a download, a payment form, data sent to another site).
    const detail = reason.slice('always_ask'.length).replace(/^:/, '').trim();
    return detail ? `${t('reasonAlwaysAsk')} (${detail})` : t('reasonAlwaysAsk');
  }
  return reason;
}
