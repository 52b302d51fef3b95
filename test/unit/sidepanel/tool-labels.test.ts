// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import en from '../../../_locales/en/messages.json';
import zh from '../../../_locales/zh_CN/messages.json';
import { installBundles, toolLabel } from '../../../sidepanel/i18n';

describe('tool labels follow the UI language', () => {
  it('known tools use the locale; unknown ones (MCP) keep the engine label, then the name', () => {
    installBundles('zh-CN', zh, en);
    expect(toolLabel('browser_click', 'Click')).toBe('点击');
    expect(toolLabel('ask_user', 'Ask you')).toBe('向你提问');
    expect(toolLabel('mcp__srv__echo', 'echo')).toBe('echo');
    expect(toolLabel('mcp__srv__echo')).toBe('mcp__srv__echo');
    installBundles('en', en, en);
    expect(toolLabel('browser_navigate', 'Open URL')).toBe('Open URL');
  });
});
