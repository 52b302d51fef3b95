/**
 * The hidden-text rules the review found missing (near-zero opacity, a transparent text fill,
 * clip-path, transform: scale(0)), on computed-style values as Chromium reports them. The same
 * tricks run for real in Chromium in test/e2e/security/adversarial.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  clipsEverything,
  hidesOwnText,
  isSubtreeHidden,
  scalesToNothing,
} from '../../../content-scripts/dom/visibility';

function style(props: Record<string, string>): CSSStyleDeclaration {
  const css: Record<string, string> = {
    visibility: 'visible',
    fontSize: '16px',
    textIndent: '0px',
    color: 'rgb(0, 0, 0)',
    opacity: '1',
    display: 'block',
    clipPath: 'none',
    transform: 'none',
    scale: 'none',
    ...props,
  };
  return {
    ...css,
    getPropertyValue: (name: string) => css[name] ?? '',
  } as unknown as CSSStyleDeclaration;
}
const div = () =>
  ({ getAttribute: () => null, hasAttribute: () => false, localName: 'div' }) as unknown as Element;

describe('hidden text', () => {
  it('near-zero opacity hides a subtree', () => {
    expect(isSubtreeHidden(div(), style({ opacity: '0.01' }))).toBe(true);
    expect(isSubtreeHidden(div(), style({ opacity: '0.5' }))).toBe(false);
  });
  it('clip-path that leaves nothing hides, whatever the positioning', () => {
    for (const clip of [
      'inset(50%)',
      'inset(0px 0px 100% 0px)',
      'inset(0% 50% 0% 50%)',
      'circle(0px at 50% 50%)',
      'circle(0)',
      'ellipse(0px 10px)',
      'ellipse(10px 0px at 50% 50%)',
      'polygon(0px 0px, 0px 0px, 0px 0px)',
    ]) {
      expect(clipsEverything(clip), clip).toBe(true);
      expect(isSubtreeHidden(div(), style({ clipPath: clip })), clip).toBe(true);
    }
    for (const clip of [
      'none',
      'inset(10%)',
      'circle(40% at 50% 50%)',
      'polygon(0px 0px, 10px 0px, 10px 10px)',
    ])
      expect(clipsEverything(clip), clip).toBe(false);
  });
  it('a transform that scales to nothing hides', () => {
    expect(scalesToNothing('matrix(0, 0, 0, 0, 0, 0)')).toBe(true);
    expect(scalesToNothing('matrix(0, 0, 0, 1, 0, 0)')).toBe(true);
    expect(scalesToNothing('matrix3d(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)')).toBe(true);
    expect(scalesToNothing('matrix(1, 0, 0, 1, 10, 0)')).toBe(false);
    expect(isSubtreeHidden(div(), style({ transform: 'matrix(0, 0, 0, 0, 0, 0)' }))).toBe(true);
    expect(isSubtreeHidden(div(), style({ scale: '0' }))).toBe(true);
  });
  it('a transparent text fill hides the text, unless a background is clipped to it (gradient text)', () => {
    expect(hidesOwnText(style({ '-webkit-text-fill-color': 'rgba(0, 0, 0, 0)' }), null)).toBe(true);
    expect(
      hidesOwnText(
        style({ '-webkit-text-fill-color': 'rgba(0, 0, 0, 0)', 'background-clip': 'text' }),
        null,
      ),
    ).toBe(false);
    expect(
      hidesOwnText(style({ '-webkit-text-fill-color': 'rgb(255, 255, 255)' }), [255, 255, 255, 1]),
    ).toBe(true);
    expect(
      hidesOwnText(style({ '-webkit-text-fill-color': 'rgb(0, 0, 0)' }), [255, 255, 255, 1]),
    ).toBe(false);
  });
});
