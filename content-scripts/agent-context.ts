/** What every page-side handler works with: the document's refs, its overlay and its change tracker. */
import type { PageEnv } from './env';
import type { Highlighter } from './highlight';
import { PageError, staleRefError } from './page-error';
import type { RefRegistry } from './refs';
import { StyleCache } from './dom/visibility';
import { reportElement } from './dom/report';
import type { ElementReport } from '../src/protocol/page-messages';
import type { ChangeTracker } from './actions/change-tracker';

export class AgentContext {
  /** Frame prefix of refs in this document (`f3`), learned from the service worker's requests. */
  refPrefix = '';
  /** Started before an action runs, read by the `settle` that follows it. */
  tracker: ChangeTracker | null = null;
  /** The deferred part of the last action; `settle` waits for it. */
  pending: Promise<void> = Promise.resolve();
  /**
   * Why the pending action refused to finish once it ran (a PageError thrown after the reply,
   * e.g. the field it was typing into became disabled): settle reports it, once.
   */
  refused: string | undefined;

  constructor(
    readonly env: PageEnv,
    readonly registry: RefRegistry,
    readonly highlighter: Highlighter,
  ) {}

  get doc(): Document {
    return this.env.win.document;
  }

  resolve(ref: string, docId: string | undefined): Element {
    if (docId !== undefined && docId !== this.registry.docId) throw staleRefError(ref);
    const found = this.registry.lookup(ref);
    if (found.kind !== 'ok') throw staleRefError(ref);
    return found.element;
  }

  report(el: Element): ElementReport {
    return reportElement(el, this.registry, new StyleCache(), this.refPrefix);
  }

  fail(code: ConstructorParameters<typeof PageError>[0], message: string): never {
    throw new PageError(code, message);
  }
}
