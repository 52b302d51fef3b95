/**
 * Where the step gap goes (issue 26, point 4): the phases of each step, from marks the worker
 * records while the benchmark runs (`src/util/step-marks.ts`, off unless this turns it on) and
 * from the loopback servers' own times, all on one clock.
 *
 * The worker's marks are `performance.timeOrigin + performance.now()`, like this process's
 * `wallClock()`; `workerClockOffset` measures the difference (it is a fraction of a millisecond on
 * one machine) and the phases are computed after removing it. The benchmark also wraps the
 * worker's global `fetch` (the provider and the MCP client both call it at call time) to mark when
 * a request leaves for the model server or the MCP server.
 */
import type { ChatRequest } from '../demo/openai-server';
import { wallClock } from '../demo/openai-server';
import { percentile, round } from './stats';

export type Mark = [phase: string, at: number];

interface ServerTimes {
  /** The model response's last byte written (the step's start). */
  responseEnd: number;
  /** The tool call reaching the MCP server, and its answer written. */
  toolArrived: number;
  toolAnswered: number;
  /** The next model request's first byte. */
  nextRequest: number;
}

/**
 * The phases of one step in order: each ends at the named mark (found as the first such mark
 * after the previous phase's), or at a server time. `from` of the first phase is the response end.
 */
export const PHASES: { phase: string; until: string; what: string }[] = [
  {
    phase: 'stream end parse',
    until: 'stream.end',
    what: 'response last byte → the engine has the stop event (fetch body, SSE parse, normalized events, deltas emitted)',
  },
  {
    phase: 'before assistant commit',
    until: 'assistant.commit',
    what: 'boundary, call ids on the path, argument parse, cost',
  },
  {
    phase: 'assistant commit',
    until: 'assistant.committed',
    what: 'the assistant message + run transaction',
  },
  {
    phase: 'driver → tool step',
    until: 'tool.step',
    what: 'token.usage emitted, the driver reads the run, take-over check',
  },
  {
    phase: 'call facts',
    until: 'verdict.start',
    what: 'run read, descriptor digest, argument validation, decideCall, target',
  },
  { phase: 'Gatekeeper verdict', until: 'verdict.end', what: 'site rule read + decideVerdict' },
  { phase: 'dispatch', until: 'tool_start.commit', what: 'afterVerdict, dispatch' },
  {
    phase: 'tool start commit',
    until: 'tool_start.committed',
    what: 'tool_call node executing + run.pendingTool transaction',
  },
  {
    phase: 'receiver gate',
    until: 'tool.execute',
    what: 'site rules listed for the receiver gate, boundary',
  },
  {
    phase: 'MCP client → fetch',
    until: 'fetch:mcp',
    what: 'the MCP client until its fetch is called',
  },
  {
    phase: 'fetch → MCP server',
    until: '@toolArrived',
    what: 'the tools/call request reaching the server',
  },
  {
    phase: 'MCP answer → engine',
    until: 'tool.returned',
    what: 'answer written → the tool result in the engine (response parse, MCP client)',
  },
  { phase: 'before result commit', until: 'result.commit', what: 'boundary, result shaped' },
  {
    phase: 'result commit',
    until: 'result.committed',
    what: 'tool_call final state + tool_result + cursor (+ the next cutoff) transaction',
  },
  {
    phase: 'driver → cutoff',
    until: 'cutoff.commit',
    what: 'the driver reads the run, take-over check',
  },
  {
    phase: 'cutoff commit',
    until: 'cutoff.committed',
    what: "the takeCutoff transaction (none when the result's commit took the cutoff)",
  },
  {
    phase: 'page tools + path read',
    until: 'context.build',
    what: 'refreshPageTools, threads.path',
  },
  { phase: 'buildContext', until: 'context.built', what: 'path → provider messages' },
  {
    phase: 'request prep',
    until: 'stream.call',
    what: 'token estimate, compaction check, provider resolve, item.start',
  },
  { phase: 'provider → fetch', until: 'fetch:model', what: 'request body serialization, SDK' },
  {
    phase: 'fetch → model server',
    until: '@nextRequest',
    what: 'fetch start → the request reaching the model server',
  },
];

/**
 * Each step's phase durations (ms), or null for a step whose marks are not all there. `marks` are
 * a turn's marks in the worker's order, already on this process's clock.
 */
export function stepPhases(marks: Mark[], steps: ServerTimes[]): (number[] | null)[] {
  const out: (number[] | null)[] = [];
  let from = 0;
  for (const s of steps) {
    // The step's stream end: the last one before its tool call reached the server.
    let i = -1;
    for (let k = from; k < marks.length && marks[k][1] < s.toolArrived; k++)
      if (marks[k][0] === 'stream.end') i = k;
    if (i < 0) {
      out.push(null);
      continue;
    }
    let t = s.responseEnd;
    const durations: number[] = [];
    let ok = true;
    for (const p of PHASES) {
      let at: number;
      if (p.until.startsWith('@')) {
        at = s[p.until.slice(1) as 'toolArrived' | 'nextRequest'];
        if (p.until === '@toolArrived') {
          durations.push(at - t);
          t = s.toolAnswered; // the tool's own window is not the engine's
          continue;
        }
      } else {
        const j = marks.findIndex((m, k) => k >= i && m[0] === p.until);
        if (j < 0) {
          ok = false;
          break;
        }
        i = j;
        at = marks[j][1];
      }
      durations.push(at - t);
      t = at;
    }
    from = i;
    out.push(ok ? durations : null);
  }
  return out;
}

/** The server times of a turn's steps (titles left out), paired with its tool calls in order. */
export function serverTimes(
  requests: ChatRequest[],
  calls: { arrivedAt: number; answeredAt: number }[],
): ServerTimes[] {
  const steps = requests.filter((r) => !r.isTitle);
  const out: ServerTimes[] = [];
  for (let i = 0; i + 1 < steps.length && i < calls.length; i++)
    out.push({
      responseEnd: steps[i].sentAt ?? NaN,
      toolArrived: calls[i].arrivedAt,
      toolAnswered: calls[i].answeredAt,
      nextRequest: steps[i + 1].receivedAt,
    });
  return out;
}

/** p50 (and p95) of each phase over some steps, with the sum of the p50s. */
export function phaseTable(rows: (number[] | null)[]) {
  const ok = rows.filter((r): r is number[] => r !== null);
  const phases = PHASES.map((p, k) => {
    const xs = ok.map((r) => r[k]);
    return {
      phase: p.phase,
      what: p.what,
      p50: round(percentile(xs, 50), 2),
      p95: round(percentile(xs, 95), 2),
    };
  });
  return {
    steps: ok.length,
    incomplete: rows.length - ok.length,
    phases,
    sumOfP50s: round(
      phases.reduce((a, p) => a + p.p50, 0),
      2,
    ),
  };
}

/** Marks on in the worker, and its fetch wrapped to mark requests to the model and the MCP server. */
export function enableMarksSource(mcpUrl: string): string {
  return `(() => {
    globalThis.__keelStepMarks ??= [];
    if (globalThis.__keelBenchFetch) return;
    globalThis.__keelBenchFetch = true;
    const f = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      globalThis.__keelStepMarks?.push([url.startsWith(${JSON.stringify(mcpUrl)}) ? 'fetch:mcp' : 'fetch:model', performance.timeOrigin + performance.now()]);
      return f(input, init);
    };
  })()`;
}

export const DRAIN_MARKS_SOURCE = '(globalThis.__keelStepMarks ?? []).splice(0)';

/** Worker clock − this process's clock (ms), from the round trip with the smallest delay. */
export async function workerClockOffset(worker: {
  evaluate(expr: string): Promise<unknown>;
}): Promise<number> {
  let best = { rtt: Infinity, offset: 0 };
  for (let i = 0; i < 15; i++) {
    const t0 = wallClock();
    const w = (await worker.evaluate('performance.timeOrigin + performance.now()')) as number;
    const t1 = wallClock();
    if (t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: w - (t0 + t1) / 2 };
  }
  return best.offset;
}
