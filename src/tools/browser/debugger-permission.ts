/**
 * `debugger` is an optional permission: Chrome warns about it at install, and users distrust an
 * extension that holds it without using it. Keel asks for it the first time the user approves an
 * L2 action. Chrome grants it only from an extension page in a user gesture, so the side panel
 * asks in the approval card's click handler (sidepanel/debugger-permission.ts); the worker only
 * checks whether it holds it. Every L2 tool is wrapped here so that:
 * - while the permission is missing, the call always asks (in 'act' mode an allowed site would
 *   run it without a card, and without a card there is no click to ask in);
 * - if it is still missing when the call runs (the user declined Chrome's prompt, or revoked the
 *   permission), the page is not touched and the model gets a result that says so and names the
 *   L1 alternative, where there is one.
 */
import type { AgentTool, ToolResult, ToolTarget } from '../types';
import type { BrowserHost } from './host';

/** The first sentence of every error about the missing permission (host and tools alike). */
export const DEBUGGER_NOT_GRANTED = "Keel does not have Chrome's debugger permission.";

/** Why an L2 call asks while the permission is missing (shown on the approval card). */
export const DEBUGGER_PERMISSION_ASK =
  "uses Chrome's debugger: when you allow this, Chrome asks once for the debugger permission";

/**
 * What the model can do instead, per L2 tool. Tools without an L1 equivalent say what is left:
 * the user does it.
 */
const ALTERNATIVES: Readonly<Record<string, string>> = {
  browser_mouse:
    'Use browser_click or browser_hover instead (synthetic DOM events: a page that checks isTrusted may ignore them).',
  browser_keyboard:
    'Use browser_type or browser_press_key instead (synthetic DOM events: a page that checks isTrusted may ignore them).',
  browser_dialog:
    'There is no L1 way to answer a JavaScript dialog: ask the user to answer it. (Dialogs that browser_click or browser_type open are answered at once with OK / Cancel and reported.)',
  browser_upload_file:
    'There is no L1 way to put a file into a file input: ask the user to choose the file themselves.',
};

/** The error result of an L2 call that could not run without the permission. */
export function debuggerMissingResult(toolName: string): ToolResult<never> {
  const instead =
    ALTERNATIVES[toolName] ?? 'Use an L1 tool instead, or ask the user to do this step.';
  const text = [
    `${toolName} did not run and nothing was done on the page. ${DEBUGGER_NOT_GRANTED}`,
    'Chrome asks for it when the user approves a trusted-input (L2) action; it was declined or later revoked.',
    instead,
    'The user can grant it by approving an L2 action again and allowing Chrome’s prompt.',
  ].join(' ');
  return { content: [{ type: 'text', text }], isError: true };
}

/** Adds the debugger-permission gate to one L2 tool (see the file comment). */
export function withDebuggerPermission<P, D>(
  tool: AgentTool<P, D>,
  host: Pick<BrowserHost, 'debuggerPermitted'>,
): AgentTool<P, D> {
  const resolveTarget = tool.resolveTarget;
  return {
    ...tool,
    async resolveTarget(params, ctx): Promise<ToolTarget> {
      const target: ToolTarget = resolveTarget ? await resolveTarget.call(tool, params, ctx) : {};
      if (!target.forbidden && !target.alwaysAsk && !(await host.debuggerPermitted())) {
        return { ...target, alwaysAsk: DEBUGGER_PERMISSION_ASK };
      }
      return target;
    },
    async execute(toolCallId, params, signal, onUpdate, ctx) {
      if (!(await host.debuggerPermitted())) return debuggerMissingResult(tool.name);
      return tool.execute.call(tool, toolCallId, params, signal, onUpdate, ctx);
    },
  };
}
