import { t } from '../i18n';

/**
 * The optional note a card sends with the user's answer (a hand-over's Done, Hand back, a plan's
 * approval or rejection): it reaches the model as the user's words.
 */
export function NoteField({
  id,
  value,
  onInput,
  label = t('takeoverNote'),
}: {
  id: string;
  value: string;
  onInput: (value: string) => void;
  label?: string;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        rows={2}
        value={value}
        onInput={(e) => onInput((e.currentTarget as HTMLTextAreaElement).value)}
      />
    </div>
  );
}
