/**
 * A minimal observable value. Components subscribe through `useStore` (hooks.ts) with a selector,
 * so a change re-renders only the components whose selected slice changed.
 *
 * Invariant: state is replaced, never mutated, so selectors can compare slices with `Object.is`.
 */
export class ExternalStore<T> {
  private state: T;
  private readonly listeners = new Set<() => void>();

  constructor(initial: T) {
    this.state = initial;
  }

  get(): T {
    return this.state;
  }

  set(next: T): void {
    if (Object.is(next, this.state)) return;
    this.state = next;
    for (const cb of [...this.listeners]) cb();
  }

  update(fn: (prev: T) => T): void {
    this.set(fn(this.state));
  }

  subscribe(cb: () => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }
}

/**
 * Values keyed by id with one listener set per key. Streaming deltas go here: appending to one
 * message notifies only that message's component, never the thread around it.
 */
export class KeyedStore<V> {
  private readonly values = new Map<string, V>();
  private readonly listeners = new Map<string, Set<() => void>>();

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  has(key: string): boolean {
    return this.values.has(key);
  }

  set(key: string, value: V): void {
    this.values.set(key, value);
    this.notify(key);
  }

  delete(key: string): void {
    if (!this.values.delete(key)) return;
    this.notify(key);
  }

  clear(): void {
    const keys = [...this.values.keys()];
    this.values.clear();
    for (const key of keys) this.notify(key);
  }

  subscribe(key: string, cb: () => void): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(cb);
    return () => {
      set!.delete(cb);
      if (set!.size === 0) this.listeners.delete(key);
    };
  }

  private notify(key: string): void {
    const set = this.listeners.get(key);
    if (set) for (const cb of [...set]) cb();
  }
}
