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

  it('take over and hand back show a line in the user language, never the page strings for the model', () => {
    expect(noticeText({ code: 'user_control', text: 'You have the page.' })).toEqual({
      kind: 'localized',
      key: 'noticeUserControl',
      subs: [],
    });
    expect(
      noticeText({
        code: 'hand_back',
        text: 'The user handed the page back. The tab (3) now shows: <untrusted_data_…>',
        forModel: true,
      }),
    ).toEqual({ kind: 'localized', key: 'noticeHandBack', subs: [] });
    for (const name of ['en', 'zh_CN'])
      for (const key of ['noticeUserControl', 'noticeHandBack', 'runTakeOver', 'runHandBack'])
        expect(locale(name)[key]?.message, `${name} ${key}`).toBeTruthy();
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
