/**
 * A semantic locator: how a workflow step names its element without its ref. Refs, ids,
 * classes and the order of siblings change between visits; the role, the accessible name and
 * the landmark and heading the element sits under are what a person would use to find it again.
 */
import type { SnapshotOutline } from '../tools/browser/details';
import { outlineOf, type Outline, type OutlineControl } from './outline';
import { urlPattern } from './url-pattern';

export interface SemanticLocator {
  role: string;
  /** Accessible name as the snapshot showed it. */
  name: string;
  /** Landmarks enclosing the element, outermost first (`main`, `region "Cart"`). */
  landmarks: string[];
  /** Headings in force at the element, outermost first. */
  headings: string[];
  /** Text just before the element inside its landmark, nearest first (a tie-breaker only). */
  nearText: string[];
  /** The `type=` flag of an input, when it has one (a search box is not a quantity box). */
  inputType?: string;
  /** 0 = the top frame; otherwise the frame's extension frameId at recording time. */
  frameId: number;
  /** Pattern of the page the element was on (`url-pattern.ts`), when known. */
  urlPattern?: string;
}

export function locatorOf(c: OutlineControl, url?: string): SemanticLocator {
  const pattern = url ? urlPattern(url) : null;
  return {
    role: c.role,
    name: c.name,
    landmarks: c.landmarks,
    headings: c.headings,
    nearText: c.nearText,
    ...(c.inputType ? { inputType: c.inputType } : {}),
    frameId: c.frameId,
    ...(pattern ? { urlPattern: pattern } : {}),
  };
}

/** The locator of `ref` in a structured snapshot, or null when the snapshot does not show it. */
export function locatorFromSnapshot(
  snapshot: SnapshotOutline,
  ref: string,
): SemanticLocator | null {
  return locatorIn(outlineOf(snapshot), ref);
}

export function locatorIn(outline: Outline, ref: string, url?: string): SemanticLocator | null {
  const c = outline.controls.find((x) => x.ref === ref);
  return c ? locatorOf(c, url ?? outline.url) : null;
}

/** How a locator reads in a divergence message or a step list. */
export function describeLocator(l: SemanticLocator): string {
  const where = l.headings.length
    ? ` under "${l.headings[l.headings.length - 1]}"`
    : l.landmarks.length
      ? ` in ${l.landmarks[l.landmarks.length - 1]}`
      : '';
  return `${l.role}${l.name ? ` "${l.name}"` : ''}${where}`;
}
