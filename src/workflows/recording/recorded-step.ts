/**
 * The content script's recorded steps on the worker's side: validated on receipt (a message
 * crosses from a page's process), with the frame Chrome says sent it. The content script
 * (content-scripts/recorder.ts) writes them; the page's own words in them (names, nearby text)
 * are untrusted data, only ever matched.
 */
import { z } from 'zod';
import type { RecordedStep } from '../../../content-scripts/recorder';
import type { SemanticLocator } from '../locator';

const Text = (max: number) => z.string().max(max);

const Locator = z.object({
  role: Text(80),
  name: Text(1000),
  landmarks: z.array(Text(1100)).max(32),
  headings: z.array(Text(1000)).max(16),
  nearText: z.array(Text(1000)).max(8),
  inputType: Text(40).optional(),
  frameId: z.number().int().min(0),
  urlPattern: Text(8000).optional(),
}) satisfies z.ZodType<SemanticLocator>;

const Url = Text(8000);

export const RecordedStepSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('click'), locator: Locator, doubleClick: z.boolean(), url: Url }),
  z.object({
    action: z.literal('type'),
    locator: Locator,
    text: Text(100_000).optional(),
    secret: z.literal(true).optional(),
    submit: z.boolean(),
    url: Url,
  }),
  z.object({
    action: z.literal('select'),
    locator: Locator,
    values: z.array(Text(1000)).min(1).max(100),
    url: Url,
  }),
  z.object({ action: z.literal('press_key'), key: z.literal('Enter'), locator: Locator, url: Url }),
]) satisfies z.ZodType<RecordedStep>;

/**
 * One entry of a recording: a step the page saw (with the frame that sent it), or a navigation
 * the user made themselves (the address bar, a bookmark, back): one no step of theirs caused.
 */
export type RecordedEntry =
  | { kind: 'page'; step: RecordedStep; frameId: number; at: number }
  | { kind: 'navigate'; url: string; at: number };
