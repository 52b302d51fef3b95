/**
 * The outline as structure: each rendered snapshot line also carries what it says as data (the
 * control's role, name, ref, flags and value; a heading's level; a landmark's role and name), set
 * by the walker where it writes the text. Code that reasons about a page (workflows: locators,
 * final checks) reads these, never the model-facing string, so a change to the text format (a
 * wrapper, a marker, a header) cannot change what it sees.
 *
 * The values are the page's own words: untrusted data, only ever matched, never followed.
 */
import { inputTypeHint } from '../dom/roles';
import type { ElementState } from '../dom/state';

export type OutlineNode =
  | {
      kind: 'control';
      role: string;
      /** Accessible name ('' when the control has none). */
      name: string;
      /** The model-facing ref (`e41`; `f3e41` inside frame 3). */
      ref: string;
      /** State flags in snapshot order (`checked`, `disabled`, `on hover`…). */
      flags: string[];
      /** The `type=` hint of an input (`email`, `number`), when the line shows one. */
      inputType?: string;
      /** The current value (already masked for secrets), when the line shows one. */
      value?: string;
      /**
       * The row a repeated name sits in (`(in row "Buy milk")` on the line): derived by Keel to
       * tell same-named controls apart, not part of the control's own name.
       */
      row?: string;
    }
  | { kind: 'heading'; level: number; text: string }
  /** A landmark or other section whose children are one level deeper. */
  | { kind: 'section'; role: string; name: string }
  /** Clipped visible text; `item` when it is a list item's text. */
  | { kind: 'text'; text: string; item?: boolean }
  | { kind: 'media'; name: string }
  /**
   * An iframe: same-origin ones are walked inline (children one level deeper); a cross-origin
   * one has `crossOrigin` set to its index in the snapshot's frame list, and the service worker
   * replaces it with `frameId` (the id to snapshot it with) when it can match the frame.
   */
  | { kind: 'frame'; name: string; crossOrigin?: number; frameId?: number };

/** One line of the outline: its nesting depth (landmarks, frames) and what it says. */
export type OutlineLine = OutlineNode & { depth: number };

/**
 * The structured lines of a walk, in outline order. `nodes[i]` belongs to rendered line `i`; a
 * line the walker wrote without a node (none today) is left out rather than guessed from text.
 */
export function outlineLines(
  lines: readonly { depth: number; node?: OutlineNode }[],
  from = 0,
  to = lines.length,
): OutlineLine[] {
  const out: OutlineLine[] = [];
  for (let i = from; i < to && i < lines.length; i++) {
    const l = lines[i];
    if (l.node) out.push({ ...l.node, depth: l.depth });
  }
  return out;
}

/** Cross-origin frame lines get the extension frameId the service worker matched them to. */
export function withFrameIds(
  lines: readonly OutlineLine[],
  ids: ReadonlyMap<number, number>,
): OutlineLine[] {
  return lines.map((l) => {
    if (l.kind !== 'frame' || l.crossOrigin === undefined) return l;
    const frameId = ids.get(l.crossOrigin);
    return frameId === undefined ? l : { ...l, frameId };
  });
}

/** The node of a control line, from the same values `controlLine` (dom/control-line.ts) renders. */
export function controlNode(
  el: Element,
  role: string,
  name: string,
  ref: string,
  state: ElementState,
): OutlineNode {
  const inputType = inputTypeHint(el);
  return {
    kind: 'control',
    role,
    name,
    ref,
    flags: [...state.flags],
    ...(inputType ? { inputType } : {}),
    ...(state.value !== null ? { value: state.value } : {}),
  };
}
