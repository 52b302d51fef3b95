import { useState } from 'preact/hooks';
import type { RecordingStatus } from '../../src/protocol';
import { t } from '../i18n';
import { Icon } from './icons';
import { useEngine, usePanel } from './panel-context';

/**
 * Record a workflow by showing it (issue 27): the Record button, the live step list while the
 * user demonstrates in the tab, and the review after Stop (remove steps, rename inputs, name it).
 */
export function RecordingPanel() {
  const recording = useEngine((s) => s.recording);
  const panel = usePanel();
  const [error, setError] = useState<string | null>(null);
  const show = (out: { ok: boolean; message?: string }) =>
    setError(out.ok ? null : (out.message ?? null));
  return (
    <section
      class="recording"
      aria-labelledby="recording-title"
      data-phase={recording?.phase ?? 'idle'}
    >
      {!recording && (
        <div class="recording-idle">
          <button
            type="button"
            class="btn primary"
            data-action="record-workflow"
            onClick={() => void panel.startRecording().then(show)}
          >
            <span class="record-dot" aria-hidden="true" />
            <span id="recording-title">{t('recordStart')}</span>
          </button>
          <p class="hint">{t('recordHint')}</p>
        </div>
      )}
      {recording?.phase === 'recording' && (
        <div class="recording-live" role="status">
          <p id="recording-title">
            <span class="record-dot" aria-hidden="true" />
            {t('recordingNow', recording.steps.length)}
          </p>
          <StepList steps={recording.steps} />
          <div class="workflow-actions">
            <button
              type="button"
              class="btn primary"
              data-action="stop-recording"
              onClick={() => void panel.stopRecording(recording.recordingId).then(show)}
            >
              {t('recordStop')}
            </button>
            <button
              type="button"
              class="btn"
              data-action="discard-recording"
              onClick={() => void panel.discardRecording(recording.recordingId).then(show)}
            >
              {t('recordDiscard')}
            </button>
          </div>
        </div>
      )}
      {recording?.phase === 'stopped' && (
        <Review key={recording.recordingId} recording={recording} onResult={show} />
      )}
      {error && (
        <p class="workflow-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function StepList({ steps }: { steps: string[] }) {
  if (!steps.length) return <p class="empty">{t('recordNothing')}</p>;
  return (
    <ol class="workflow-steps" aria-label={t('recordingStepsLabel')}>
      {steps.map((s, i) => (
        <li key={i}>{s}</li>
      ))}
    </ol>
  );
}

function Review({
  recording,
  onResult,
}: {
  recording: RecordingStatus;
  onResult: (out: { ok: boolean; message?: string }) => void;
}) {
  const panel = usePanel();
  const [dropped, setDropped] = useState<number[]>([]);
  const [names, setNames] = useState<Record<string, string>>(() =>
    Object.fromEntries(recording.inputs.map((i) => [i.name, i.name])),
  );
  const [name, setName] = useState('');
  const toggle = (i: number) =>
    setDropped(dropped.includes(i) ? dropped.filter((x) => x !== i) : [...dropped, i]);
  const save = () => {
    const renames = Object.fromEntries(
      Object.entries(names)
        .filter(([from, to]) => to.trim() && to.trim() !== from)
        .map(([f, to]) => [f, to.trim()]),
    );
    void panel.saveRecording(recording.recordingId, name.trim(), dropped, renames).then(onResult);
  };
  return (
    <div class="recording-review">
      <h2 id="recording-title">{t('recordReviewTitle')}</h2>
      {recording.endedBy === 'tab_closed' && <p class="hint">{t('recordTabClosed')}</p>}
      {recording.steps.length === 0 ? (
        <p class="empty">{t('recordNothing')}</p>
      ) : (
        <ol class="workflow-steps recording-steps" aria-label={t('recordingStepsLabel')}>
          {recording.steps.map((s, i) => {
            const gone = dropped.includes(i);
            return (
              <li key={i} class={gone ? 'dropped' : undefined} data-step={i}>
                <span>
                  {i + 1}. {s}
                </span>
                <button
                  type="button"
                  class="icon-btn"
                  data-action="toggle-step"
                  aria-pressed={gone}
                  aria-label={gone ? t('recordKeepStep', i + 1) : t('recordDropStep', i + 1)}
                  title={gone ? t('recordKeepStep', i + 1) : t('recordDropStep', i + 1)}
                  onClick={() => toggle(i)}
                >
                  <Icon name={gone ? 'back' : 'trash'} />
                </button>
              </li>
            );
          })}
        </ol>
      )}
      {recording.inputs.length > 0 && (
        <fieldset class="workflow-inputs">
          <legend>{t('recordInputsLabel')}</legend>
          {recording.inputs.map((i) => (
            <label key={i.name}>
              <input
                type="text"
                data-input={i.name}
                value={names[i.name] ?? i.name}
                onInput={(e) =>
                  setNames({ ...names, [i.name]: (e.target as HTMLInputElement).value })
                }
              />
              <span class="recording-input-value">
                {i.secret ? t('recordSecretInput') : (i.default ?? '')}
              </span>
            </label>
          ))}
        </fieldset>
      )}
      <label class="recording-name">
        <span>{t('recordName')}</span>
        <input
          type="text"
          data-field="workflow-name"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </label>
      <div class="workflow-actions">
        <button
          type="button"
          class="btn primary"
          data-action="save-recording"
          disabled={!name.trim() || dropped.length >= recording.steps.length}
          onClick={save}
        >
          {t('recordSave')}
        </button>
        <button
          type="button"
          class="btn"
          data-action="discard-recording"
          onClick={() => void panel.discardRecording(recording.recordingId).then(onResult)}
        >
          {t('recordDiscard')}
        </button>
      </div>
    </div>
  );
}
