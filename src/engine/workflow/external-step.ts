/**
 * The step of an outside agent's call (Keel as an MCP server, docs/mcp-server.md): a run without
 * the model whose one call came from the bridge. Like a workflow's replay step, it commits a
 * synthetic assistant message holding the call and lets the ordinary tool step run it — the same
 * Gatekeeper, approvals, tool card, durable record and recovery as a call of Keel's model. When
 * the tool step hands the run back (the call is recorded), the run completes.
 *
 * Recovery needs nothing of its own: `external.phase` is committed with the message, so a restart
 * before it plans the message again, and one after it is the tool step's (spec/001 §5).
 */
import type { RunRecord } from '../../store/records';
import type { EngineContext } from '../host/engine-context';
import { LeafWriter } from '../run/leaf-writer';
import { commitEnd } from '../run/run-end';
import { moveRun } from '../run/run-edges';
import type { StepOutcome } from '../run/step-outcome';

/** What an external run does next, from its committed phase (pure). */
export function decideExternal(
  run: Pick<RunRecord, 'state' | 'external'>,
): 'plan' | 'complete' | 'none' {
  if (!run.external || run.state !== 'streaming_model') return 'none';
  return run.external.phase === 'planned' ? 'plan' : 'complete';
}

export async function externalStep(ctx: EngineContext, runId: string): Promise<StepOutcome> {
  const run0 = await ctx.store.runs.get(runId);
  if (!run0) return 'ended';
  const next = decideExternal(run0);
  if (next === 'none') return 'ended';
  await ctx.commit(next === 'plan' ? 'external_call' : 'external_done', async (outbox) => {
    const run = await ctx.store.runs.get(runId);
    if (!run?.external || decideExternal(run) !== next) return;
    const ext = run.external;
    const now = ctx.clock.now();
    const w = await LeafWriter.open(ctx, run, outbox);
    if (next === 'complete') {
      await commitEnd(ctx, w, run, { by: 'decideExternal', to: 'completed', stopReason: 'end' });
      return;
    }
    const assistantId = ctx.ids.next('n');
    await w.append({
      kind: 'assistant_message',
      id: assistantId,
      createdAt: now,
      text: `${ext.clientName} calls ${ext.call.name}.`,
      providerStopReason: 'tool_use',
      toolCalls: [{ id: ext.call.id, name: ext.call.name, args: ext.call.args }],
    });
    await w.finish(now);
    await ctx.store.runs.update(
      runId,
      (r) => {
        r.external = { ...ext, phase: 'sent' };
        r.stepCursor = {
          ...r.stepCursor,
          assistantNodeId: assistantId,
          toolCalls: [ext.call],
          nextToolIndex: 0,
        };
        moveRun(r, 'decideExternal', 'executing_tool');
      },
      now,
    );
  });
  return 'continue';
}
