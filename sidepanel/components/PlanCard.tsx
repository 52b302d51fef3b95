import { useState } from 'preact/hooks';
import {
  type InteractionRequest,
  PlanProposal,
  type PlanSite,
  type PlanWriteKind,
} from '../../src/protocol';
import { t } from '../i18n';
import { Icon } from './icons';
import { NoteField } from './NoteField';
import { usePanel } from './panel-context';

const KIND_LABEL: Record<PlanWriteKind, () => string> = {
  navigate: () => t('planKindNavigate'),
  click: () => t('planKindClick'),
  type: () => t('planKindType'),
  tool: () => t('planKindTool'),
};

/**
 * "Approve the plan?" (approval mode 'plan', issue 28): the model's plan, with every site and
 * kind of write it asks for as a checkbox. Approve sends only what is still checked (the engine
 * refuses anything the proposal did not offer), so the user can narrow a plan but never widen it
 * by accident; Reject sends an optional note to the model.
 */
export function PlanCard({ request }: { request: InteractionRequest }) {
  const panel = usePanel();
  const parsed = PlanProposal.safeParse(request.payload);
  const proposal = parsed.success ? parsed.data : null;
  const [sites, setSites] = useState<PlanSite[]>(
    () => proposal?.sites.map((s) => ({ site: s.site, writes: [...s.writes] })) ?? [],
  );
  const [note, setNote] = useState('');
  const [sending, setSending] = useState(false);
  const idPrefix = `plan-${request.interactionId}`;
  if (!proposal) return null;

  const toggle = (site: string, kind: PlanWriteKind, on: boolean) =>
    setSites((all) =>
      all.map((s) =>
        s.site !== site
          ? s
          : { ...s, writes: on ? [...s.writes, kind] : s.writes.filter((w) => w !== kind) },
      ),
    );
  const send = async (response: unknown) => {
    if (sending) return;
    setSending(true);
    if (!(await panel.respondInteraction(request.interactionId, response))) setSending(false);
  };
  const edited = sites.some((s, i) => s.writes.length !== proposal.sites[i]?.writes.length);

  return (
    <section class="interaction-card plan-card" aria-labelledby={`${idPrefix}-q`}>
      <h2 class="interaction-question" id={`${idPrefix}-q`}>
        <Icon name="info" />
        <span>{t('planTitle')}</span>
      </h2>
      <p class="plan-summary">{proposal.summary}</p>
      {proposal.steps.length > 0 && (
        <>
          <h3 class="plan-heading">{t('planSteps')}</h3>
          <ol class="plan-steps">
            {proposal.steps.map((s, i) => (
              <li key={i}>{s}</li>
            ))}
          </ol>
        </>
      )}
      <h3 class="plan-heading">{t('planSites')}</h3>
      <p class="hint">{t('planHelp')}</p>
      <ul class="plan-sites">
        {proposal.sites.map((offered, i) => (
          <li key={offered.site} data-plan-site={offered.site}>
            <strong class="plan-site">{offered.site}</strong>
            {offered.why && <span class="field-help">{t('planWhy', offered.why)}</span>}
            {offered.writes.length === 0 ? (
              <span class="plan-kinds">{t('planReadOnly')}</span>
            ) : (
              <span class="plan-kinds">
                {offered.writes.map((k) => (
                  <label class="check-row" key={k}>
                    <input
                      type="checkbox"
                      data-plan-kind={k}
                      checked={sites[i]?.writes.includes(k) ?? false}
                      disabled={sending}
                      onChange={(e) =>
                        toggle(offered.site, k, (e.currentTarget as HTMLInputElement).checked)
                      }
                    />
                    <span>{KIND_LABEL[k]()}</span>
                  </label>
                ))}
              </span>
            )}
          </li>
        ))}
      </ul>
      <NoteField id={`${idPrefix}-note`} value={note} onInput={setNote} label={t('planNote')} />
      <div class="approval-actions">
        <button
          type="button"
          class="btn primary"
          data-action="plan-approve"
          disabled={sending}
          onClick={() =>
            void send({
              approved: true,
              ...(edited ? { sites } : {}),
              ...(note.trim() ? { note: note.trim() } : {}),
            })
          }
        >
          {t('planApprove')}
        </button>
        <button
          type="button"
          class="btn"
          data-action="plan-reject"
          disabled={sending}
          onClick={() =>
            void send(note.trim() ? { rejected: true, note: note.trim() } : { rejected: true })
          }
        >
          {t('planReject')}
        </button>
      </div>
    </section>
  );
}
