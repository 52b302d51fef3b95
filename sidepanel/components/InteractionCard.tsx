import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { InteractionRequest } from '../../src/protocol';
import { t } from '../i18n';
import {
  initialAnswers,
  interactionForm,
  interactionResponse,
  missingRequired,
  type AnswerValue,
  type FormField,
} from '../state/interaction-form';
import { Icon } from './icons';
import { usePanel } from './panel-context';

function FieldInput({
  field,
  value,
  invalid,
  onChange,
  idPrefix,
}: {
  field: FormField;
  value: AnswerValue;
  invalid: boolean;
  onChange: (v: AnswerValue) => void;
  idPrefix: string;
}) {
  const id = `${idPrefix}-${field.id}`;
  const label = field.label || t('interactionAnswer');
  if (field.type === 'confirm') {
    return (
      <label class="field check" for={id}>
        <input
          id={id}
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
        />
        <span>{label}</span>
      </label>
    );
  }
  if (field.type === 'choice') {
    return (
      <fieldset class="field choice" aria-invalid={invalid ? 'true' : undefined}>
        <legend>
          {label}
          {field.required && (
            <span class="req" aria-hidden="true">
              {' '}
              *
            </span>
          )}
        </legend>
        {field.options.map((opt, i) => (
          <label key={i} class="choice-option">
            <input
              type="radio"
              name={id}
              value={opt}
              checked={value === opt}
              required={field.required}
              onChange={() => onChange(opt)}
            />
            <span>{opt}</span>
          </label>
        ))}
      </fieldset>
    );
  }
  return (
    <div class="field">
      <label for={id}>
        {label}
        {field.required && (
          <span class="req" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      <textarea
        id={id}
        rows={2}
        value={String(value)}
        required={field.required}
        aria-invalid={invalid ? 'true' : undefined}
        onInput={(e) => onChange((e.currentTarget as HTMLTextAreaElement).value)}
      />
    </div>
  );
}

/**
 * A question from the agent (ask_user) or an MCP server (elicitation), answered with
 * `interaction.response`. Rendered generically: unknown payload shapes become one text answer.
 */
export function InteractionCard({ request }: { request: InteractionRequest }) {
  const panel = usePanel();
  const form = useMemo(() => interactionForm(request), [request]);
  const [answers, setAnswers] = useState(() => initialAnswers(form));
  const [missing, setMissing] = useState<string[]>([]);
  const [sending, setSending] = useState(false);
  const ref = useRef<HTMLFormElement>(null);
  const idPrefix = `ask-${request.interactionId}`;

  useEffect(() => {
    // Focus the first field: the agent is waiting for exactly this input.
    (ref.current?.querySelector('textarea, input') as HTMLElement | null)?.focus();
  }, [request.interactionId]);

  const send = async (values: Record<string, AnswerValue> | null) => {
    if (sending) return;
    setSending(true);
    const ok = await panel.respondInteraction(
      request.interactionId,
      interactionResponse(request.kind, form, values),
    );
    if (!ok) setSending(false);
  };

  const onSubmit = (e: Event) => {
    e.preventDefault();
    const miss = missingRequired(form, answers);
    setMissing(miss);
    if (miss.length === 0) void send(answers);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    // Enter submits from a single-line answer; Shift+Enter still makes a newline.
    if (
      e.key === 'Enter' &&
      !e.shiftKey &&
      !e.isComposing &&
      (e.target as HTMLElement).tagName === 'TEXTAREA' &&
      form.fields.length === 1
    ) {
      onSubmit(e);
    }
  };

  const single = form.fields.length === 1 ? form.fields[0] : null;
  // noValidate: required fields are checked above, so the message is ours (translated, announced)
  // instead of the browser's bubble.
  return (
    <form
      ref={ref}
      class="interaction-card"
      noValidate
      aria-labelledby={`${idPrefix}-q`}
      onSubmit={onSubmit}
      onKeyDown={onKeyDown}
    >
      <h2 class="interaction-question" id={`${idPrefix}-q`}>
        <Icon name="info" />
        <span>{form.question || t('interactionDefaultQuestion')}</span>
      </h2>
      {single?.type === 'confirm' ? (
        <div class="approval-actions">
          <button
            type="button"
            class="btn primary"
            disabled={sending}
            onClick={() => void send({ [single.id]: true })}
          >
            {t('yes')}
          </button>
          <button
            type="button"
            class="btn"
            disabled={sending}
            onClick={() => void send({ [single.id]: false })}
          >
            {t('no')}
          </button>
        </div>
      ) : (
        <>
          {form.fields.map((f) => (
            <FieldInput
              key={f.id}
              field={f}
              idPrefix={idPrefix}
              value={answers[f.id]}
              invalid={missing.includes(f.id)}
              onChange={(v) => setAnswers((a) => ({ ...a, [f.id]: v }))}
            />
          ))}
          {missing.length > 0 && (
            <p class="field-error" role="alert">
              {t('interactionRequired')}
            </p>
          )}
          <div class="approval-actions">
            <button type="submit" class="btn primary" disabled={sending}>
              {t('interactionSend')}
            </button>
            <button type="button" class="btn" disabled={sending} onClick={() => void send(null)}>
              {t('interactionDecline')}
            </button>
          </div>
        </>
      )}
    </form>
  );
}
