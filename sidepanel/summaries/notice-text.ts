import type { NoticeItem } from '../../src/protocol';
import type { MessageKey } from '../i18n';

/**
 * What the panel shows for an engine notice. The engine writes its notices in English, for the
 * model and the export; the panel shows the ones whose wording is fixed in the user's language,
 * and the rest (which quote a provider's or a tool's own message) as written.
 *
 * `hidden`: an interruption that kept a partial answer. That answer already carries its own
 * "interrupted" mark and the run banner offers Continue; the notice is there for the model.
 */
export type NoticeText =
  | { kind: 'hidden' }
  | { kind: 'localized'; key: MessageKey; subs: string[] }
  | { kind: 'verbatim'; text: string };

export function noticeText(item: Pick<NoticeItem, 'code' | 'text' | 'forModel'>): NoticeText {
  switch (item.code) {
    case 'interrupted':
      return item.forModel
        ? { kind: 'hidden' }
        : { kind: 'localized', key: 'noticeInterrupted', subs: [] };
    // Take over and hand back (issue 28): the hand back's notice carries the fresh look for the
    // model (page strings in untrusted blocks); the user sees a line in their language.
    case 'user_control':
      return { kind: 'localized', key: 'noticeUserControl', subs: [] };
    case 'hand_back':
      return { kind: 'localized', key: 'noticeHandBack', subs: [] };
    case 'tool_failures_warning':
    case 'tools_disabled': {
      // The count leads the engine's text ("3 tool calls in a row have failed…").
      const n = /^(\d+) /.exec(item.text)?.[1];
      if (!n) break;
      const key =
        item.code === 'tools_disabled' ? 'noticeToolsDisabled' : 'noticeToolFailuresWarning';
      return { kind: 'localized', key, subs: [n] };
    }
  }
  return { kind: 'verbatim', text: item.text };
}
