import { useLayoutEffect, useReducer, useRef } from 'preact/hooks';
import type { ExternalStore, KeyedStore } from './external-store';

/**
 * Subscribe a component to a slice of an ExternalStore (the useSyncExternalStore pattern without
 * preact/compat). The component re-renders only when `select(state)` changes by `Object.is`, so a
 * selector must return stored references, not freshly built objects.
 */
export function useStore<T, S>(store: ExternalStore<T>, select: (state: T) => S): S {
  const [, force] = useReducer((n: number) => n + 1, 0);
  const selected = select(store.get());
  const latest = useRef({ select, selected });
  latest.current = { select, selected };

  useLayoutEffect(() => {
    const check = () => {
      const next = latest.current.select(store.get());
      if (!Object.is(next, latest.current.selected)) force(0);
    };
    const unsubscribe = store.subscribe(check);
    // The store may have changed between render and subscription.
    check();
    return unsubscribe;
  }, [store]);

  return selected;
}

/** Subscribe to one key of a KeyedStore: used by the streaming message and live tool progress. */
export function useKeyed<V>(store: KeyedStore<V>, key: string): V | undefined {
  const [, force] = useReducer((n: number) => n + 1, 0);
  const value = store.get(key);
  const seen = useRef(value);
  seen.current = value;

  useLayoutEffect(() => {
    const check = () => {
      if (!Object.is(store.get(key), seen.current)) force(0);
    };
    const unsubscribe = store.subscribe(key, check);
    check();
    return unsubscribe;
  }, [store, key]);

  return value;
}
