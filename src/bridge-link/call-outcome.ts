/**
 * What an outside agent hears about its call (docs/mcp-server.md §Results), from what Keel
 * recorded: the call's tool_result, or — when the run ended without one — its stop reason. Pure.
 */
import type { Item, RunState, StopReason } from '../protocol';
import type { McpContent } from '../protocol/bridge-wire';

type ToolResult = Extract<Item, { kind: 'tool_result' }>;

export interface CallOutcome {
  content: McpContent[];
  isError: boolean;
}

const text = (t: string): McpContent => ({ type: 'text', text: t });

/** A recorded result: its content as MCP content; a denial or interrupt says so first. */
export function outcomeOfResult(r: Pick<ToolResult, 'ok' | 'content' | 'outcome'>): CallOutcome {
  const content: McpContent[] = r.content.map((b) =>
    b.type === 'text' ? text(b.text) : { type: 'image', data: b.dataBase64, mimeType: b.mimeType },
  );
  if (r.outcome === 'interrupted')
    return { content: [text('Interrupted by the user in Keel.'), ...content], isError: true };
  if (r.outcome === 'denied')
    return {
      content: [text("Keel's user denied this call in Keel's panel."), ...content],
      isError: true,
    };
  return { content, isError: !r.ok };
}

/** The run ended and no result was recorded for the call (the turn's stop says why). */
export function outcomeOfEnd(stop: StopReason, error?: { message: string }): CallOutcome {
  switch (stop) {
    case 'paused_uncertain':
      return {
        content: [
          text(
            'Keel stopped while this action was running, so it may or may not have happened. The user decides in Keel’s panel (retry, mark done or fail); check the page before calling it again.',
          ),
        ],
        isError: true,
      };
    case 'interrupted':
      return {
        content: [text('Interrupted by the user in Keel; the call did not run.')],
        isError: true,
      };
    default:
      return {
        content: [
          text(
            `Keel ended the call without a result (${stop})${error ? `: ${error.message}` : '.'}`,
          ),
        ],
        isError: true,
      };
  }
}

/**
 * A call looked up in the committed thread (a call re-sent after a worker restart): its result;
 * else the run's state says whether it is still going (undefined) or stopped without one — an
 * uncertain write waits for the user, and the agent is told the action may have happened.
 * `runState` is absent when the run is no longer the thread's current one (it ended).
 */
export function outcomeOfSnapshot(
  result: Pick<ToolResult, 'ok' | 'content' | 'outcome'> | undefined,
  runState: RunState | undefined,
): CallOutcome | undefined {
  if (result) return outcomeOfResult(result);
  if (runState === undefined) return outcomeOfEnd('error', { message: 'the run ended first' });
  if (runState === 'paused_uncertain') return outcomeOfEnd('paused_uncertain');
  if (runState === 'interrupted') return outcomeOfEnd('interrupted');
  if (runState === 'failed' || runState === 'completed') return outcomeOfEnd('error');
  return undefined;
}
