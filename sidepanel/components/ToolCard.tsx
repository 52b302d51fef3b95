import { useState } from 'preact/hooks';
import type { ToolCallItem, ToolCallState, ToolResultItem } from '../../src/protocol';
import { prettyJson } from '../format';
import { t, type MessageKey, toolLabel } from '../i18n';
import { useKeyed } from '../state/hooks';
import { Icon } from './icons';
import { usePanel } from './panel-context';
import { readToolDetails } from './tool-details';
import { toolSummary } from '../summaries/tool-summary';

const STATE_LABEL: Record<ToolCallState, MessageKey> = {
  start: 'toolStart',
  approval_required: 'toolApprovalRequired',
  executing: 'toolExecuting',
  result: 'toolDone',
  rejected: 'toolRejected',
  invalid: 'toolInvalid',
};

function ResultContent({ result }: { result: ToolResultItem }) {
  const details = readToolDetails(result.details);
  const text = result.content
    .filter((b) => b.type === 'text')
    .map((b) => (b.type === 'text' ? b.text : ''))
    .join('\n');
  const box = details.highlight;
  const overlay =
    box && details.viewport && box.x !== undefined && box.y !== undefined && box.width && box.height
      ? {
          left: `${(box.x / details.viewport.width) * 100}%`,
          top: `${(box.y / details.viewport.height) * 100}%`,
          width: `${(box.width / details.viewport.width) * 100}%`,
          height: `${(box.height / details.viewport.height) * 100}%`,
        }
      : null;
  return (
    <>
      {box && (
        <p class="tool-highlight">
          <span class="tool-section-label">{t('toolHighlight')}</span> {box.label}
          {box.width !== undefined &&
            ` (${Math.round(box.x ?? 0)}, ${Math.round(box.y ?? 0)} · ${Math.round(box.width)}×${Math.round(box.height ?? 0)})`}
        </p>
      )}
      {details.screenshot && (
        <figure class="tool-shot">
          <div class="shot-frame">
            <img src={details.screenshot} alt={t('toolScreenshotAlt')} loading="lazy" />
            {overlay && <span class="shot-highlight" style={overlay} aria-hidden="true" />}
          </div>
        </figure>
      )}
      {result.content
        .filter((b) => b.type === 'image')
        .map((b, i) =>
          b.type === 'image' && /^image\/(png|jpeg|gif|webp)$/.test(b.mimeType) ? (
            <img
              key={i}
              class="tool-image"
              src={`data:${b.mimeType};base64,${b.dataBase64}`}
              alt={t('toolImageAlt', i + 1)}
            />
          ) : null,
        )}
      {text && (
        <>
          <div class="tool-section-label">{t('toolResult')}</div>
          {/* Focusable: a long result scrolls, and keyboard users must be able to scroll it. */}
          <pre class="tool-pre" tabIndex={0} role="region" aria-label={t('toolResult')}>
            {text}
          </pre>
        </>
      )}
    </>
  );
}

/** Parameters and result, rendered only while open: a long thread has many closed cards. */
function ToolBody({ item, result }: { item: ToolCallItem; result?: ToolResultItem }) {
  const params = item.rawArgs ?? prettyJson(item.params);
  return (
    <div class="tool-body">
      {params && (
        <>
          <div class="tool-section-label">{t('toolParams')}</div>
          <pre class="tool-pre" tabIndex={0} role="region" aria-label={t('toolParams')}>
            {params}
          </pre>
        </>
      )}
      {result && <ResultContent result={result} />}
    </div>
  );
}

/**
 * A tool call as the spec/000 §6 card: start → approval_required → executing (live progress) →
 * result, or the terminal rejected / invalid. The approval itself is the separate ApprovalCard.
 */
export function ToolCard({ item, result }: { item: ToolCallItem; result?: ToolResultItem }) {
  const live = useKeyed(usePanel().live.store, item.id);
  const [open, setOpen] = useState(false);
  const failed = item.state === 'result' && result && !result.ok;
  const stateKey: MessageKey = failed ? 'toolFailed' : STATE_LABEL[item.state];
  const busy = item.state === 'start' || item.state === 'executing';
  // Arguments are complete from approval_required on; a card interrupted at start has none.
  const hasParams =
    item.rawArgs !== undefined ||
    (item.state !== 'start' && item.params !== undefined && item.params !== null);
  const expandable = hasParams || !!result;
  const icon = busy
    ? 'spinner'
    : item.state === 'result' && !failed
      ? 'check'
      : item.state === 'approval_required'
        ? 'shield'
        : item.state === 'result'
          ? 'alert'
          : 'x';
  const summary = item.state === 'result' ? toolSummary(item, result) : null;
  // A finished call reads as one sentence naming its target; the state word stays for screen readers.
  const headParts = summary ? (
    <>
      <Icon name={icon} class="tool-state-icon" />
      <span class="tool-line" title={toolLabel(item.name, item.label)}>
        {t(summary.key, ...summary.subs)}
      </span>
      <span class="sr-only">{t(stateKey)}</span>
    </>
  ) : (
    <>
      <Icon name={icon} class="tool-state-icon" />
      <span class="tool-name">{toolLabel(item.name, item.label)}</span>
      <span class="tool-state">{t(stateKey)}</span>
    </>
  );
  return (
    <div
      class={`tool-card state-${item.state}${failed ? ' failed' : ''}`}
      data-item-id={item.id}
      data-state={item.state}
    >
      {expandable ? (
        <details
          open={open}
          onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
        >
          <summary class="tool-summary" aria-busy={busy ? 'true' : undefined}>
            {headParts}
          </summary>
          {open && <ToolBody item={item} result={result} />}
        </details>
      ) : (
        <div class="tool-summary" aria-busy={busy ? 'true' : undefined}>
          {headParts}
        </div>
      )}
      {item.state === 'executing' && live?.toolProgress && (
        <p class="tool-progress" role="status">
          {live.toolProgress}
        </p>
      )}
      {item.state === 'start' && live?.toolArgs && (
        <p class="tool-progress args">{live.toolArgs.slice(-160)}</p>
      )}
    </div>
  );
}
