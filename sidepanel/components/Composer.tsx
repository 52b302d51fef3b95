import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ImageInput } from '../../src/protocol';
import { LIMITS } from '../../src/protocol';
import { t } from '../i18n';
import { draftKey } from '../state/drafts';
import { useKeyed } from '../state/hooks';
import { modelVision, readImageFile } from '../state/images';
import { composerAction } from '../state/keymap';
import type { SendMode } from '../state/panel';
import { isActiveRun } from '../state/thread-state';
import { Icon } from './icons';
import { useEngine, usePanel, useThread } from './panel-context';

/** How long "Stopping…" may last before the buttons come back anyway (spec/000 §4). */
const INTERRUPT_FALLBACK_MS = 15_000;

/**
 * The input. Its text is the thread's draft (Drafts), so nothing typed is lost to a reconnect, a
 * re-mount or a failed send: the text is cleared when sent and written back if the engine said no.
 */
export function Composer({ threadId }: { threadId: string | null }) {
  const panel = usePanel();
  const text = useKeyed(panel.drafts.store, draftKey(threadId)) ?? panel.drafts.get(threadId);
  const runState = useThread(threadId, (th) => th?.run?.state ?? null);
  const settings = useEngine((s) => s.settings);
  const active = isActiveRun(runState);
  const vision = modelVision(settings);
  const [images, setImages] = useState<ImageInput[]>([]);
  const [interrupting, setInterrupting] = useState(false);
  const [dragging, setDragging] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!active) setInterrupting(false);
  }, [active]);

  useEffect(() => {
    if (!interrupting) return;
    const timer = setTimeout(() => setInterrupting(false), INTERRUPT_FALLBACK_MS);
    return () => clearTimeout(timer);
  }, [interrupting]);

  // Grow with the text up to a limit (CSS max-height), then scroll.
  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${el.scrollHeight}px`;
  }, [text]);

  const send = async (mode: SendMode) => {
    const body = text.trim();
    if (!body && images.length === 0) return;
    const sentImages = images;
    panel.drafts.set(threadId, '');
    setImages([]);
    const result = await panel.sendMessage(
      threadId,
      { text: body, images: sentImages.length ? sentImages : undefined },
      mode,
    );
    if (!result.ok) {
      // Put the text back where the user will look for it, keeping anything typed since.
      const target = result.threadId ?? threadId;
      const current = panel.drafts.get(target);
      panel.drafts.set(target, current ? `${body}\n${current}` : body);
      if (draftKey(target) === draftKey(threadId))
        setImages((now) => (now.length ? now : sentImages));
    }
  };

  const interrupt = () => {
    if (!threadId || !active) return;
    setInterrupting(true);
    void panel.interrupt(threadId).then((out) => {
      if (out.ok && (out.result as { wasActive?: boolean } | undefined)?.wasActive === false)
        setInterrupting(false);
    });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const action = composerAction(e, active);
    if (!action) return;
    e.preventDefault();
    if (action === 'interrupt') interrupt();
    else void send(action === 'enqueue' ? 'enqueue' : 'auto');
  };

  const addFiles = async (files: File[]) => {
    const candidates = files.filter((f) => f.type.startsWith('image/'));
    if (candidates.length === 0) return false;
    if (vision === false) {
      panel.showHint('error', t('imageNoVision'));
      return true;
    }
    for (const file of candidates) {
      const res = await readImageFile(file);
      if (!res.ok) {
        panel.showHint('error', res.reason === 'type' ? t('imageBadType') : t('imageTooLarge'));
        continue;
      }
      setImages((prev) => {
        if (prev.length >= LIMITS.maxImages) {
          panel.showHint('error', t('imageTooMany', LIMITS.maxImages));
          return prev;
        }
        return [...prev, res.image];
      });
    }
    return true;
  };

  const onPaste = (e: ClipboardEvent) => {
    const files = Array.from(e.clipboardData?.files ?? []);
    if (files.some((f) => f.type.startsWith('image/'))) {
      e.preventDefault();
      void addFiles(files);
    }
  };

  const onDrop = (e: DragEvent) => {
    setDragging(false);
    const files = Array.from(e.dataTransfer?.files ?? []);
    if (files.length) {
      e.preventDefault();
      void addFiles(files);
    }
  };

  const hasContent = text.trim().length > 0 || images.length > 0;
  return (
    <div
      class={`composer${dragging ? ' dragging' : ''}`}
      onDragOver={(e) => {
        if (e.dataTransfer?.types.includes('Files')) {
          e.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      {images.length > 0 && (
        <ul class="composer-images" aria-label={t('attachedImages')}>
          {images.map((img, i) => (
            <li key={i}>
              <img
                src={`data:${img.mimeType};base64,${img.dataBase64}`}
                alt={t('imageAttachment', i + 1)}
              />
              <button
                type="button"
                class="icon-btn remove-image"
                aria-label={t('removeImage', i + 1)}
                onClick={() => setImages((prev) => prev.filter((_, j) => j !== i))}
              >
                <Icon name="x" />
              </button>
            </li>
          ))}
        </ul>
      )}
      <label class="sr-only" for="composer-input">
        {t('composerLabel')}
      </label>
      <textarea
        id="composer-input"
        ref={area}
        class="composer-input"
        rows={1}
        value={text}
        placeholder={active ? t('composerPlaceholderActive') : t('composerPlaceholder')}
        aria-describedby="composer-keys"
        onInput={(e) => panel.drafts.set(threadId, (e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      />
      <div class="composer-bar">
        <p class="composer-keys" id="composer-keys">
          {active ? t('keysActive') : t('keysIdle')}
        </p>
        {vision !== false && (
          <>
            <input
              ref={fileInput}
              type="file"
              accept="image/png,image/jpeg,image/webp,image/gif"
              multiple
              class="sr-only"
              tabIndex={-1}
              aria-hidden="true"
              onChange={(e) => {
                const input = e.currentTarget as HTMLInputElement;
                void addFiles(Array.from(input.files ?? []));
                input.value = '';
              }}
            />
            <button
              type="button"
              class="icon-btn"
              aria-label={t('attachImage')}
              title={t('attachImage')}
              onClick={() => fileInput.current?.click()}
            >
              <Icon name="image" />
            </button>
          </>
        )}
        {active && (
          <>
            <button
              type="button"
              class="icon-btn"
              aria-label={t('queueMessage')}
              title={t('queueMessage')}
              disabled={!hasContent}
              onClick={() => void send('enqueue')}
            >
              <Icon name="queue" />
            </button>
            <button
              type="button"
              class="btn danger stop-btn"
              disabled={interrupting}
              onClick={interrupt}
            >
              <Icon name={interrupting ? 'spinner' : 'stop'} />
              <span>{interrupting ? t('stopping') : t('stop')}</span>
            </button>
          </>
        )}
        <button
          type="button"
          class="btn primary send-btn"
          disabled={!hasContent}
          aria-label={active ? t('steerSend') : t('send')}
          title={active ? t('steerSend') : t('send')}
          onClick={() => void send('auto')}
        >
          <Icon name="send" />
        </button>
      </div>
    </div>
  );
}
