import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISABLE_AFTER, WARN_AFTER } from '../../../src/engine/run/run-machine';
import { noticeText } from '../../../sidepanel/summaries/notice-text';

const locale = (name: string) =>
  JSON.parse(
    readFileSync(resolve(__dirname, `../../../_locales/${name}/messages.json`), 'utf8'),
  ) as Record<string, { message: string }>;

describe('engine notices in the panel', () => {
  it('an interruption that kept a partial answer is not repeated; one without is localized', () => {
    expect(
      noticeText({ code: 'interrupted', text: 'The user interrupted this reply.', forModel: true }),
    ).toEqual({ kind: 'hidden' });
    expect(
      noticeText({
        code: 'interrupted',
        text: 'Interrupted. Continue to resume, or send a new message.',
      }),
    ).toEqual({ kind: 'localized', key: 'noticeInterrupted', subs: [] });
  });

  it("the breaker's notices keep the engine's count", () => {
    expect(
      noticeText({
        code: 'tool_failures_warning',
        text: `${WARN_AFTER} tool calls in a row have failed. Stop…`,
        forModel: true,
      }),
    ).toEqual({ kind: 'localized', key: 'noticeToolFailuresWarning', subs: [String(WARN_AFTER)] });
    expect(
      noticeText({
        code: 'tools_disabled',
        text: `${DISABLE_AFTER} tool calls in a row have failed, so…`,
        forModel: true,
      }),
    ).toEqual({ kind: 'localized', key: 'noticeToolsDisabled', subs: [String(DISABLE_AFTER)] });
  });

  it('notices that quote a provider or a tool stay as written', () => {
    expect(
      noticeText({ code: 'model_error', text: 'The model call failed: 401 invalid x-api-key' }),
    ).toEqual({ kind: 'verbatim', text: 'The model call failed: 401 invalid x-api-key' });
    expect(noticeText({ code: 'tools_disabled', text: 'unexpected wording' })).toEqual({
      kind: 'verbatim',
      text: 'unexpected wording',
    });
  });

  it('every localized notice exists in both languages with its placeholder', () => {
    const en = locale('en');
    const zh = locale('zh_CN');
    for (const key of ['noticeInterrupted', 'noticeToolFailuresWarning', 'noticeToolsDisabled']) {
      expect(en[key]?.message, key).toBeTruthy();
      expect(zh[key]?.message, key).toBeTruthy();
      expect(zh[key].message.includes('$1'), key).toBe(en[key].message.includes('$1'));
    }
  });
});
