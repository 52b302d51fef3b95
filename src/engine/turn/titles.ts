import type { EngineHost } from './engine-host';
import { threadMeta } from '../views/thread-view';

const TITLE_PROMPT =
  'You write titles for conversations. Reply with a title of at most 6 words for the user request below: no quotes, no trailing punctuation, in the language of the request.';

/**
 * Best-effort title from the task model (spec/001 §2): the first line is already the title; a
 * model title replaces it only if nothing else (the user) renamed the thread meanwhile. Failures
 * are silent — a title is never worth an error in the chat.
 */
export async function generateTitle(
  engine: EngineHost,
  threadId: string,
  text: string,
): Promise<void> {
  const { store, providers, clock } = engine.ctx;
  const settings = await store.settings.get();
  const ref = settings.taskModel ?? settings.defaultModel;
  if (!ref || !text.trim()) return;
  const provider = await providers.resolve(ref.providerId);
  if (!provider) return;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 20_000);
  let title = '';
  try {
    for await (const ev of provider.stream({
      model: ref.model,
      system: TITLE_PROMPT,
      messages: [{ role: 'user', content: [{ type: 'text', text: text.slice(0, 2000) }] }],
      tools: [],
      maxOutputTokens: 40,
      signal: controller.signal,
    })) {
      if (ev.type === 'text_delta') title += ev.text;
      if (ev.type === 'error') return;
      if (ev.type === 'stop') break;
    }
  } finally {
    clearTimeout(timer);
  }
  title = title
    .replace(/["“”'`*#]/g, '')
    .split('\n')[0]
    .trim()
    .replace(/[.。!！?？]+$/, '')
    .slice(0, 80);
  if (!title) return;
  const updated = await engine.ctx.commit('title', async () => {
    const t = await store.threads.get(threadId);
    if (!t || t.titleSource !== 'first_line') return null;
    return store.threads.update(threadId, (th) => {
      th.title = title;
      th.titleSource = 'model';
      th.updatedAt = Math.max(th.updatedAt, clock.now());
    });
  });
  if (updated)
    engine.ctx.emit({
      type: 'thread.updated',
      thread: threadMeta(updated, await store.runs.current(threadId)),
    });
}
