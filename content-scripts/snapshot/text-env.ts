/**
 * Background and text readability of one element during a walk, computed lazily: most elements
 * hold no text of their own, and these are the most expensive style reads of the walk.
 */
import { backgroundFor, hidesOwnText, type Rgba, WHITE } from '../dom/visibility';

export class TextEnv {
  private bgMemo: Rgba | null | undefined;
  private hiddenMemo: boolean | undefined;

  /** `style` null: the document root (white canvas, readable). */
  constructor(
    private readonly style: CSSStyleDeclaration | null,
    private readonly parent: TextEnv | null,
  ) {}

  get bg(): Rgba | null {
    if (this.bgMemo === undefined) {
      this.bgMemo = this.style
        ? backgroundFor(this.style, this.parent ? this.parent.bg : WHITE)
        : WHITE;
    }
    return this.bgMemo;
  }

  /** The element's own text nodes cannot be read (invisible, tiny, indented away, background-coloured). */
  get hidden(): boolean {
    if (this.hiddenMemo === undefined)
      this.hiddenMemo = this.style ? hidesOwnText(this.style, this.bg) : false;
    return this.hiddenMemo;
  }
}
