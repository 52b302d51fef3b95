/**
 * Model-facing refs name their frame: `e41` is in the top frame, `f3e41` in frame 3. The
 * content script of each frame only knows its local refs (`e41`).
 */

export const REF_PATTERN = /^(?:f(\d{1,9}))?(e\d{1,9})$/;

export interface ParsedRef {
  frameId: number;
  local: string;
}

export function parseRef(ref: string): ParsedRef {
  const m = REF_PATTERN.exec(ref.trim());
  if (!m) {
    throw new Error(
      `"${ref}" is not an element ref. Refs look like e41 (or f3e41 inside frame 3); take them from browser_snapshot or browser_find.`,
    );
  }
  return { frameId: m[1] === undefined ? 0 : Number(m[1]), local: m[2] };
}

export function refPrefix(frameId: number): string {
  return frameId === 0 ? '' : `f${frameId}`;
}

export function staleRefMessage(ref: string): string {
  return `Element ref ${ref} no longer exists (the page changed or navigated). Take a new browser_snapshot and use a ref from it.`;
}
