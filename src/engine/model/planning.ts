/**
 * The optional planning round (spec/000 §1–2): round 0 runs without tools and must end with
 * <need_tool> or <no_tool>; the tag is stripped from what the user sees and from later context.
 * <no_tool> leads to a continuation round (also without tools) that answers in full.
 */
export const PLANNING_PROMPT = [
  '# Planning round',
  'Tools are not available in this reply. First answer the user briefly in plain language: what you understood and, if actions are needed, how you will go about it.',
  'End your reply with exactly one tag: <need_tool> if you need to use tools (the browser etc.) to complete the request, or <no_tool> if you can answer without tools.',
].join('\n');

export const CONTINUATION_PROMPT = [
  '# Continue',
  'Tools are not needed. Now give the user your complete answer. Do not output any <need_tool> or <no_tool> tag.',
].join('\n');

const TAGS = ['<need_tool>', '<no_tool>'] as const;

export type Intent = 'need_tool' | 'no_tool' | null;

/** The last intent tag in the full text (no tag → null, treated as need_tool). */
export function detectIntent(text: string): Intent {
  const need = text.lastIndexOf('<need_tool>');
  const no = text.lastIndexOf('<no_tool>');
  if (need < 0 && no < 0) return null;
  return no > need ? 'no_tool' : 'need_tool';
}

export function stripIntentTags(text: string): string {
  return text
    .replace(/<\/?(?:need_tool|no_tool)>/g, '')
    .replace(/[ \t]+\n/g, '\n')
    .trimEnd();
}

/**
 * Removes intent tags from a stream of text deltas: a suffix that could still become a tag is
 * held back until the next delta shows whether it is one.
 */
export class IntentTagFilter {
  private held = '';

  push(delta: string): string {
    let text = this.held + delta;
    this.held = '';
    for (const tag of TAGS) text = text.split(tag).join('');
    text = text.replace(/<\/(?:need_tool|no_tool)>/g, '');
    const lt = text.lastIndexOf('<');
    if (lt >= 0) {
      const tail = text.slice(lt);
      if (TAGS.some((t) => t.startsWith(tail) || `</${t.slice(1)}`.startsWith(tail))) {
        this.held = tail;
        text = text.slice(0, lt);
      }
    }
    return text;
  }

  /** Whatever is held back at the end was not a tag. */
  flush(): string {
    const h = this.held;
    this.held = '';
    return h;
  }
}
