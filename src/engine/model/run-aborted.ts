import { RunAborted } from '../host/engine-context';

/** The answer a model had streamed when the turn was interrupted (kept, spec/001 §3; issue 19). */
export interface PartialAnswer {
  assistantId: string;
  text: string;
  thinking: string;
}

/**
 * An interrupt that stopped a model stream after it had produced something: the interrupt's
 * commit keeps `answer` as an assistant message ending `interrupted`, so recovery, a resume and
 * the context builder see what the user saw.
 */
export class InterruptedAnswer extends RunAborted {
  constructor(readonly answer: PartialAnswer) {
    super();
  }
}
