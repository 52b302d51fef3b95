/** Parameter pieces shared by the browser tools (the JSON Schema the model sees is generated from these). */
import { z } from 'zod';
import { REF_PATTERN } from './refs';

export const TabIdParam = z
  .number()
  .int()
  .nonnegative()
  .optional()
  .describe("Tab to use. Default: this conversation's tab.");

export const FrameIdParam = z
  .number()
  .int()
  .nonnegative()
  .optional()
  .describe(
    'Frame to read (a cross-origin iframe listed in a snapshot with its frameId). Default: the page itself.',
  );

export const RefParam = z
  .string()
  .regex(REF_PATTERN, 'a ref like e41 or f3e41')
  .describe('Element ref from the latest browser_snapshot or browser_find of this tab, e.g. e41.');

export const ModifiersParam = z
  .array(z.enum(['Alt', 'Control', 'Meta', 'Shift']))
  .max(4)
  .optional()
  .describe('Modifier keys held during the action.');
