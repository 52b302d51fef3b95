import { stepMark } from '../../util/step-marks';
import type { ThinkingPart, Usage } from '../../protocol';
import type {
  NormalizedStopReason,
  Provider,
  ProviderError,
  ProviderRequest,
} from '../../providers/types';
import type { RunRecord } from '../../store/records';
import type { EngineContext } from '../host/engine-context';
import type { IntentTagFilter } from './planning';

export interface StreamedCall {
  index: number;
  id: string;
  name: string;
  args: string;
  nodeId: string;
}

export interface StreamResult {
  text: string;
  thinking: string;
  thinkingParts: ThinkingPart[];
  calls: StreamedCall[];
  usage: Usage;
  stop: NormalizedStopReason | null;
  error: ProviderError | null;
}

/**
 * Stream one model call: deltas become `item.delta` events on a provisional assistant item (and
 * provisional tool-call cards); nothing is persisted here. Never throws.
 */
export async function streamOnce(
  ctx: EngineContext,
  run: RunRecord,
  provider: Provider,
  req: { assistantId: string; request: ProviderRequest; tags: IntentTagFilter | null },
): Promise<StreamResult> {
  const { assistantId, request, tags } = req;
  const res: StreamResult = {
    text: '',
    thinking: '',
    thinkingParts: [],
    calls: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    stop: null,
    error: null,
  };
  const byIndex = new Map<number, StreamedCall>();
  const threadId = run.threadId;
  ctx.emit({
    type: 'item.start',
    threadId,
    turnId: run.turnId,
    item: {
      kind: 'assistant_message',
      id: assistantId,
      createdAt: ctx.clock.now(),
      text: '',
      providerStopReason: 'end',
      streaming: true,
      model: run.env!.model,
    },
  });
  stepMark('stream.call');
  let first = true;
  try {
    for await (const ev of provider.stream(request)) {
      if (first) {
        first = false;
        await ctx.boundary('stream:first');
      }
      switch (ev.type) {
        case 'text_delta': {
          res.text += ev.text;
          // Intent tags of a planning round never reach the user.
          const shown = tags ? tags.push(ev.text) : ev.text;
          if (shown)
            ctx.emit({ type: 'item.delta', threadId, itemId: assistantId, delta: { text: shown } });
          break;
        }
        case 'thinking_delta':
          res.thinking += ev.text;
          ctx.emit({
            type: 'item.delta',
            threadId,
            itemId: assistantId,
            delta: { thinking: ev.text },
          });
          break;
        case 'thinking_block':
          res.thinkingParts.push({
            ...ev.part,
            providerKind: ev.part.providerKind ?? run.env!.transport.kind,
          });
          break;
        case 'tool_call_start': {
          const call: StreamedCall = {
            index: ev.index,
            id: ev.id,
            name: ev.name,
            args: '',
            nodeId: ctx.ids.next('n'),
          };
          byIndex.set(ev.index, call);
          res.calls.push(call);
          const visible = ctx.registry.get(ev.name)?.descriptor.visibility !== 'internal';
          if (visible) {
            ctx.emit({
              type: 'item.start',
              threadId,
              turnId: run.turnId,
              item: {
                kind: 'tool_call',
                id: call.nodeId,
                createdAt: ctx.clock.now(),
                toolCallId: ev.id,
                assistantId,
                name: ev.name,
                label: labelOf(ctx, ev.name),
                params: {},
                state: 'start',
              },
            });
          }
          break;
        }
        case 'tool_call_delta': {
          const call = byIndex.get(ev.index);
          if (call) {
            call.args += ev.argsFragment;
            // Internal tools (todo) have no card: their arguments never reach the UI.
            if (ctx.registry.get(call.name)?.descriptor.visibility !== 'internal') {
              ctx.emit({
                type: 'item.delta',
                threadId,
                itemId: call.nodeId,
                delta: { toolArgs: ev.argsFragment },
              });
            }
          }
          break;
        }
        case 'tool_call_end':
          break;
        case 'usage':
          res.usage = ev.usage;
          break;
        case 'stop':
          res.stop = ev.reason;
          break;
        case 'error':
          res.error = ev.error;
          break;
      }
      if (res.stop || res.error) break;
    }
  } catch (e) {
    // Provider contract says stream never throws; a bug there must not wedge the run.
    res.error = {
      code: 'stream',
      message: e instanceof Error ? e.message : String(e),
      retryable: true,
    };
  }
  stepMark('stream.end');
  const rest = tags?.flush();
  if (rest && !res.error)
    ctx.emit({ type: 'item.delta', threadId, itemId: assistantId, delta: { text: rest } });
  await ctx.boundary('stream:end');
  return res;
}

function labelOf(ctx: EngineContext, name: string): string {
  return ctx.registry.get(name)?.descriptor.label ?? name;
}

/** Tell the UI a provisional item will never be persisted. */
export function discard(
  ctx: EngineContext,
  threadId: string,
  assistantId: string,
  calls: StreamedCall[],
): void {
  for (const c of calls) ctx.emit({ type: 'item.discarded', threadId, itemId: c.nodeId });
  ctx.emit({ type: 'item.discarded', threadId, itemId: assistantId });
}
