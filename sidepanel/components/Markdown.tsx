import { memo } from './memo';
import { useMemo } from 'preact/hooks';
import { t } from '../i18n';
import { renderMarkdown, renderMarkdownUncached } from '../markdown/render-markdown';

/** Copy buttons inside rendered markdown are plain markup: one delegated handler serves them all. */
function onCopyClick(e: MouseEvent): void {
  const target = e.target as Element | null;
  const button = target?.closest?.('button.copy-code') as HTMLButtonElement | null;
  if (!button) return;
  const code = button.parentElement?.querySelector('pre')?.textContent ?? '';
  void navigator.clipboard?.writeText(code).then(
    () => {
      // The name changes with the text (axe: label-content-name-mismatch), so "Copied" is heard too.
      const show = (label: string) => {
        button.textContent = label;
        button.setAttribute('aria-label', label);
      };
      button.dataset.copied = 'true';
      show(t('copied'));
      setTimeout(() => {
        delete button.dataset.copied;
        show(t('copyCode'));
      }, 1500);
    },
    () => undefined,
  );
}

/**
 * Model text as sanitized HTML. Completed text is memoized (by text) across mounts; streaming text
 * changes every delta, so it bypasses the cache instead of filling it with prefixes.
 */
function MarkdownImpl({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const label = t('copyCode');
  const html = useMemo(
    () => (streaming ? renderMarkdownUncached(text, label) : renderMarkdown(text, label)),
    [text, streaming, label],
  );
  // biome-ignore lint/security/noDangerouslySetInnerHtml: `html` is DOMPurify's output (renderMarkdown), never raw model text.
  return <div class="markdown" onClick={onCopyClick} dangerouslySetInnerHTML={{ __html: html }} />;
}

export const Markdown = memo(MarkdownImpl);
