import { useRef, useState } from 'preact/hooks';
import { t } from '../i18n';
import { exportFileName, threadMarkdown } from '../export/thread-markdown';
import {
  latestTask,
  recordingGif,
  recordingWebm,
  type RecordingFrame,
} from '../export/recording-export';
import { Icon } from './icons';
import { localizedCaptions } from '../export/recording-captions';
import { usePanel, useThread } from './panel-context';
import { RecordingPlayer } from './RecordingPlayer';

/** Hand a text to the browser as a download, through a Blob URL (nothing leaves the machine). */
export function downloadText(name: string, text: string | Uint8Array, type: string): void {
  const url = URL.createObjectURL(new Blob([text as BlobPart], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoke after the click has been handled; the download keeps its own copy.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The thread's Export button (header): Markdown to read, JSON to keep everything. Both come from
 * the engine's thread.export, which redacts secrets before anything reaches the panel. The latest
 * task's recording (thread.recording) exports as a GIF or a WebM video, or plays back here.
 */
export function ExportMenu({ threadId }: { threadId: string }) {
  const panel = usePanel();
  const ref = useRef<HTMLDetailsElement>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const [player, setPlayer] = useState<RecordingFrame[] | null>(null);
  const path = useThread(threadId, (th) => th?.path);
  /** The latest task's frames, or null (nothing recorded is said in the status line). */
  const taskFrames = async (): Promise<RecordingFrame[] | null> => {
    const all = await panel.threadRecording(threadId);
    const frames = all ? localizedCaptions(latestTask(all), path ?? [], t) : [];
    if (!frames.length) {
      if (all) setSaved(t('recordingNone'));
      return null;
    }
    return frames;
  };
  const recording = async (format: 'gif' | 'webm' | 'play') => {
    if (busy) return;
    setBusy(true);
    try {
      const frames = await taskFrames();
      if (!frames) return;
      if (format === 'play') {
        if (ref.current) ref.current.open = false;
        setPlayer(frames);
        return;
      }
      const bytes = format === 'gif' ? await recordingGif(frames) : await recordingWebm(frames);
      const name = `keel-${threadId}-task.${format}`;
      downloadText(name, bytes, format === 'gif' ? 'image/gif' : 'video/webm');
      setSaved(name);
    } catch (e) {
      setSaved(t('recordingFailed', e instanceof Error ? e.message : String(e)));
    } finally {
      setBusy(false);
    }
  };
  const run = async (format: 'md' | 'json') => {
    if (busy) return;
    setBusy(true);
    const exported = await panel.exportThread(threadId);
    setBusy(false);
    if (!exported) return;
    const name = exportFileName(exported, format);
    if (format === 'md')
      downloadText(name, threadMarkdown(exported), 'text/markdown;charset=utf-8');
    else downloadText(name, `${JSON.stringify(exported, null, 2)}\n`, 'application/json');
    setSaved(name);
  };
  return (
    <>
      {player && <RecordingPlayer frames={player} onClose={() => setPlayer(null)} />}
      <details
        class="export-menu"
        ref={ref}
        onToggle={() => setSaved(null)}
        onKeyDown={(e) => {
          // Esc closes the menu and leaves focus on its button, like any popup.
          if (e.key === 'Escape' && ref.current?.open) {
            e.preventDefault();
            e.stopPropagation();
            ref.current.open = false;
            ref.current.querySelector('summary')?.focus();
          }
        }}
      >
        <summary
          class="icon-btn"
          aria-label={t('exportTitle')}
          title={t('exportTitle')}
          data-action="export"
        >
          <Icon name="download" />
        </summary>
        <div class="export-pop" role="group" aria-label={t('exportTitle')}>
          <p class="field-help">{t('exportHelp')}</p>
          <div class="export-actions">
            <button
              type="button"
              class="btn small"
              data-export="md"
              disabled={busy}
              aria-label={t('exportMarkdownLabel')}
              onClick={() => void run('md')}
            >
              {t('exportMarkdown')}
            </button>
            <button
              type="button"
              class="btn small"
              data-export="json"
              disabled={busy}
              aria-label={t('exportJsonLabel')}
              onClick={() => void run('json')}
            >
              {t('exportJson')}
            </button>
          </div>
          <p class="field-help">{t('recordingHelp')}</p>
          <div class="export-actions">
            <button
              type="button"
              class="btn small"
              data-export="gif"
              disabled={busy}
              aria-label={t('exportGifLabel')}
              onClick={() => void recording('gif')}
            >
              GIF
            </button>
            <button
              type="button"
              class="btn small"
              data-export="webm"
              disabled={busy}
              aria-label={t('exportWebmLabel')}
              onClick={() => void recording('webm')}
            >
              WebM
            </button>
            <button
              type="button"
              class="btn small"
              data-export="play"
              disabled={busy}
              aria-label={t('recordingPlayLabel')}
              onClick={() => void recording('play')}
            >
              {t('recordingPlay')}
            </button>
          </div>
          <p class="export-saved" role="status">
            {saved ? t('exportSaved', saved) : ''}
          </p>
        </div>
      </details>
    </>
  );
}
