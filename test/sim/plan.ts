import type { Decision } from '../../src/protocol';
import { Rng } from './rng';

/**
 * A history is data: the user's actions, what the model will reply to each request, and what each
 * tool execution will do. The runner plays it against the engine; the shrinker removes parts of
 * it. Actions name their targets abstractly ("the pending approval", "a stale turn id") so that a
 * shrunk history still means something.
 */

/** The tools the simulated model can call (see world.ts for what each one is). */
export type SimToolName =
  | 'read_page'
  | 'fill_form'
  | 'reload_tab'
  | 'ask_user'
  | 'mcp__docs__search'
  /** The engine's own hand-over to the user (issue 28): a `takeover` interaction. */
  | 'request_takeover';

export interface ReplyCall {
  tool: SimToolName;
  /** 'malformed' sends broken JSON; 'invalid' valid JSON that fails the schema. */
  args: 'ok' | 'malformed' | 'invalid';
  /** 'empty' sends an empty id; 'dup' reuses the previous call id the model sent. */
  id: 'fresh' | 'empty' | 'dup';
}

export type Reply =
  | { kind: 'text'; tokens: number }
  | {
      kind: 'tools';
      calls: ReplyCall[];
      stop: 'tool_use' | 'max_tokens' | 'end';
      text: boolean;
      tokens: number;
    }
  | { kind: 'error'; status: 429 | 500 | 529 | 400 | 401; afterFirstToken: boolean }
  | { kind: 'cut'; afterFirstToken: boolean };

/**
 * What one tool dispatch does: fail `transient` times in a row with an error that says "not ready
 * yet" (each failure one attempt; the engine retries retry-safe tools after a backoff), then
 * finish at once, wait for a `release`, or fail for good.
 */
export interface ToolOutcome {
  fail: boolean;
  gated: boolean;
  transient?: number;
}

/**
 * Where a kill lands. `any`: the n-th effect boundary from now, inside transactions too; `inside`:
 * the n-th boundary inside a transaction (its writes done, its commit not landed); `write_before`
 * / `write_after`: in the n-th write tool execution from now, before or just after its effect. A
 * kill without a target (histories pinned before targets existed) counts every boundary except,
 * in memory mode, those inside a transaction.
 */
export type KillTarget = 'any' | 'inside' | 'write_before' | 'write_after';

export type Action =
  | { kind: 'submit' }
  | { kind: 'steer'; turn: 'current' | 'stale' | 'bogus' }
  | { kind: 'enqueue' }
  | { kind: 'queue_update'; pick: number }
  | { kind: 'queue_remove'; pick: number }
  | { kind: 'interrupt' }
  | { kind: 'approve'; decision: Decision; which: 'pending' | 'resolved' | 'bogus' }
  | { kind: 'answer'; response: 'answer' | 'cancel' | 'invalid'; which: 'pending' | 'resolved' }
  | { kind: 'resume'; which: 'latest' | 'bogus' }
  | { kind: 'resolve_uncertain'; resolution: 'retry' | 'mark_done' | 'fail' }
  | { kind: 'fork'; pick: number }
  | { kind: 'select_branch'; pick: number }
  | { kind: 'budget'; tokens: number | null }
  | { kind: 'approval_mode'; mode: 'ask' | 'act' }
  | { kind: 'site_rule'; rule: 'ask' | 'allow' | 'block' }
  | { kind: 'repeat'; pick: number; drift: boolean }
  | { kind: 'mcp_drop' }
  | { kind: 'mcp_restore' }
  /** The user takes the page over (run.takeOver), and hands it back, with a note or not. */
  | { kind: 'take_over' }
  | { kind: 'hand_back'; note: boolean }
  /** Let one waiting tool execution or model reply go on (the oldest, or a random one). */
  | { kind: 'release'; pick: number }
  /**
   * Kill the engine at the n-th effect boundary from now, then recover on a new engine; with
   * `again`, that engine dies too, at its `again`-th boundary (a crash during recovery).
   */
  | { kind: 'kill'; atBoundary: number; again?: number; target?: KillTarget }
  /** Let the engine run until nothing moves (no action: time passes). */
  | { kind: 'settle' };

export interface History {
  seed: number;
  actions: Action[];
  replies: Reply[];
  tools: ToolOutcome[];
  /** Model replies wait for a `release` (so ops land while a request is in flight). */
  gatedReplies: boolean[];
}

const DECISIONS: Decision[] = ['allow_once', 'allow_site', 'deny', 'deny_stop'];
const TOOLS: SimToolName[] = [
  'read_page',
  'fill_form',
  'reload_tab',
  'ask_user',
  'mcp__docs__search',
  'request_takeover',
];

/**
 * On a failing site the model keeps calling tools, mostly reading the page (a read runs without
 * approval), so that the failures come one after another and the failure breaker trips.
 */
const FAILING_SITE_TOOLS: readonly (readonly [number, SimToolName])[] = [
  [6, 'read_page'],
  [1, 'fill_form'],
  [1, 'reload_tab'],
  [1, 'ask_user'],
  [1, 'mcp__docs__search'],
];

function reply(rng: Rng, failingSite: boolean): Reply {
  return rng.weighted<() => Reply>([
    [failingSite ? 1 : 3, () => ({ kind: 'text', tokens: rng.int(5, 400) })],
    [
      failingSite ? 10 : 7,
      () => ({
        kind: 'tools',
        calls: Array.from(
          {
            length: rng.weighted([
              [6, 1],
              [3, 2],
              [1, 3],
            ]),
          },
          () => ({
            tool: failingSite ? rng.weighted(FAILING_SITE_TOOLS) : rng.pick(TOOLS),
            args: rng.weighted([
              [14, 'ok'],
              [1, 'malformed'],
              [1, 'invalid'],
            ] as const),
            id: rng.weighted([
              [14, 'fresh'],
              [1, 'empty'],
              [1, 'dup'],
            ] as const),
          }),
        ),
        stop: rng.weighted([
          [14, 'tool_use'],
          [1, 'max_tokens'],
          [1, 'end'],
        ] as const),
        text: rng.chance(0.4),
        tokens: rng.int(5, 400),
      }),
    ],
    [
      1,
      () => ({
        kind: 'error',
        status: rng.pick([429, 500, 529, 400, 401] as const),
        afterFirstToken: rng.chance(0.3),
      }),
    ],
    [1, () => ({ kind: 'cut', afterFirstToken: rng.chance(0.5) })],
  ])();
}

function action(rng: Rng): Action {
  return rng.weighted<() => Action>([
    [6, () => ({ kind: 'submit' })],
    [
      7,
      () => ({
        kind: 'steer',
        turn: rng.weighted([
          [8, 'current'],
          [1, 'stale'],
          [1, 'bogus'],
        ] as const),
      }),
    ],
    [3, () => ({ kind: 'enqueue' })],
    [1, () => ({ kind: 'queue_update', pick: rng.int(0, 7) })],
    [1, () => ({ kind: 'queue_remove', pick: rng.int(0, 7) })],
    [3, () => ({ kind: 'interrupt' })],
    [
      6,
      () => ({
        kind: 'approve',
        decision: rng.weighted([
          [5, 'allow_once'],
          [2, 'allow_site'],
          [2, 'deny'],
          [1, 'deny_stop'],
        ] as const),
        which: rng.weighted([
          [7, 'pending'],
          [2, 'resolved'],
          [1, 'bogus'],
        ] as const),
      }),
    ],
    [
      3,
      () => ({
        kind: 'answer',
        response: rng.weighted([
          [6, 'answer'],
          [2, 'cancel'],
          [1, 'invalid'],
        ] as const),
        which: rng.weighted([
          [4, 'pending'],
          [1, 'resolved'],
        ] as const),
      }),
    ],
    [
      3,
      () => ({
        kind: 'resume',
        which: rng.weighted([
          [9, 'latest'],
          [1, 'bogus'],
        ] as const),
      }),
    ],
    [
      2,
      () => ({
        kind: 'resolve_uncertain',
        resolution: rng.pick(['retry', 'mark_done', 'fail'] as const),
      }),
    ],
    [1, () => ({ kind: 'fork', pick: rng.int(0, 30) })],
    [1, () => ({ kind: 'select_branch', pick: rng.int(0, 30) })],
    [1, () => ({ kind: 'budget', tokens: rng.pick([null, null, 300, 1500, 5000]) })],
    [1, () => ({ kind: 'approval_mode', mode: rng.pick(['ask', 'act'] as const) })],
    [1, () => ({ kind: 'site_rule', rule: rng.pick(['ask', 'allow', 'block'] as const) })],
    [2, () => ({ kind: 'repeat', pick: rng.int(0, 40), drift: rng.chance(0.2) })],
    [1, () => ({ kind: 'mcp_drop' })],
    [1, () => ({ kind: 'mcp_restore' })],
    [12, () => ({ kind: 'release', pick: rng.chance(0.7) ? 0 : rng.int(0, 5) })],
    [
      3,
      () => {
        const target = rng.weighted<KillTarget>([
          [3, 'any'],
          [2, 'inside'],
          [2.5, 'write_before'],
          [2.5, 'write_after'],
        ]);
        const inTool = target === 'write_before' || target === 'write_after';
        return {
          kind: 'kill',
          atBoundary: inTool ? rng.int(1, 2) : rng.int(1, target === 'inside' ? 12 : 40),
          target,
          ...(rng.chance(0.25) ? { again: rng.int(1, 12) } : {}),
        };
      },
    ],
    [4, () => ({ kind: 'settle' })],
    [3, () => ({ kind: 'take_over' })],
    [3, () => ({ kind: 'hand_back', note: rng.chance(0.6) })],
  ])();
}

/** The history of a seed: 10–60 actions, enough replies and tool outcomes for all of them. */
export function generate(seed: number): History {
  const rng = new Rng(seed);
  const n = rng.int(10, 60);
  const actions: Action[] = [{ kind: 'submit' }];
  for (let i = 1; i < n; i++) actions.push(action(rng));
  // One history in five plays against a failing site, so that the failure breaker trips.
  const failingSite = rng.chance(0.2);
  const replies = Array.from({ length: rng.int(4, 40) }, () => reply(rng, failingSite));
  const failRate = failingSite ? 0.8 : 0.15;
  const tools = Array.from({ length: 40 }, () => ({
    fail: rng.chance(failRate),
    gated: rng.chance(0.3),
    transient: rng.weighted([
      [10, 0],
      [2, 1],
      [1, 2],
      [1, 3],
    ]),
  }));
  const gatedReplies = Array.from({ length: replies.length }, () => rng.chance(0.35));
  return { seed, actions, replies, tools, gatedReplies };
}

export { DECISIONS };
