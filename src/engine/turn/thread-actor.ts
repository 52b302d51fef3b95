/**
 * Runs one thing at a time for one thread (a promise chain); threads run in parallel. A task's
 * failure is reported to its caller and never breaks the chain for the next one.
 */
export class ThreadActor {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

export class ActorPool {
  private readonly actors = new Map<string, ThreadActor>();

  for(threadId: string): ThreadActor {
    let a = this.actors.get(threadId);
    if (!a) this.actors.set(threadId, (a = new ThreadActor()));
    return a;
  }

  delete(threadId: string): void {
    this.actors.delete(threadId);
  }
}
