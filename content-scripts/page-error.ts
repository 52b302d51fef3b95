import type { PageErrorCode } from '../src/protocol/page-messages';

/** A failure the service worker passes to the model as is: the message says what to do next. */
export class PageError extends Error {
  constructor(
    readonly code: PageErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PageError';
  }
}

export function staleRefError(ref: string): PageError {
  return new PageError(
    'stale_ref',
    `Element ref ${ref} no longer exists (the page changed or navigated). Take a new browser_snapshot and use a ref from it.`,
  );
}
