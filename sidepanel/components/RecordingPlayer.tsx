import { useEffect, useState } from 'preact/hooks';
import { FRAME_SECONDS, type RecordingFrame } from '../export/recording-export';
import { t } from '../i18n';
import { Icon } from './icons';

/**
 * Plays a task's recording back over the thread view: one frame per step with its summary,
 * play / pause, and a step back and forward. The images are the stored frames (password fields
 * already masked, secrets already out of the summaries).
 */
export function RecordingPlayer({
  frames,
  onClose,
}: {
  frames: RecordingFrame[];
  onClose: () => void;
}) {
  const [index, setIndex] = useState(0);
  const [playing, setPlaying] = useState(true);
  const last = frames.length - 1;
  useEffect(() => {
    if (!playing) return;
    if (index >= last) {
      setPlaying(false);
      return;
    }
    const timer = setTimeout(() => setIndex((i) => Math.min(last, i + 1)), FRAME_SECONDS * 1000);
    return () => clearTimeout(timer);
  }, [playing, index, last]);
  const frame = frames[index];
  if (!frame) return null;
  return (
    <div
      class="recording-player"
      role="dialog"
      aria-label={t('recordingTitle')}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <div class="recording-head">
        <strong>{t('recordingTitle')}</strong>
        <button
          type="button"
          class="icon-btn"
          aria-label={t('recordingClose')}
          title={t('recordingClose')}
          data-recording="close"
          onClick={onClose}
        >
          <Icon name="x" />
        </button>
      </div>
      <img
        class="recording-frame"
        src={`data:${frame.mimeType};base64,${frame.dataBase64}`}
        width={frame.width}
        height={frame.height}
        alt={frame.summary}
      />
      <p class="recording-caption" data-recording="caption">
        {frame.summary}
      </p>
      <div class="recording-controls">
        <button
          type="button"
          class="btn small"
          data-recording="prev"
          disabled={index === 0}
          onClick={() => {
            setPlaying(false);
            setIndex((i) => Math.max(0, i - 1));
          }}
        >
          {t('recordingPrev')}
        </button>
        <button
          type="button"
          class="btn small"
          data-recording={playing ? 'pause' : 'play'}
          onClick={() => {
            if (!playing && index >= last) setIndex(0);
            setPlaying(!playing);
          }}
        >
          {playing ? t('recordingPause') : t('recordingPlay')}
        </button>
        <button
          type="button"
          class="btn small"
          data-recording="next"
          disabled={index >= last}
          onClick={() => {
            setPlaying(false);
            setIndex((i) => Math.min(last, i + 1));
          }}
        >
          {t('recordingNext')}
        </button>
        <span class="recording-count" data-recording="position">
          {t('recordingPosition', String(index + 1), String(frames.length))}
        </span>
      </div>
    </div>
  );
}
