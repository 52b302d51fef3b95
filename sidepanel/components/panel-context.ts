import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { EngineState } from '../state/app-state';
import { useStore } from '../state/hooks';
import type { Panel } from '../state/panel';
import type { ThreadState } from '../state/thread-state';
import type { UiState } from '../state/ui-state';
import { i18nStore } from '../i18n';

export const PanelContext = createContext<Panel | null>(null);

export function usePanel(): Panel {
  const panel = useContext(PanelContext);
  if (!panel) throw new Error('usePanel outside <PanelContext.Provider>');
  return panel;
}

export function useEngine<S>(select: (s: EngineState) => S): S {
  return useStore(usePanel().engine, select);
}

export function useUi<S>(select: (s: UiState) => S): S {
  return useStore(usePanel().ui, select);
}

export function useThread<S>(
  threadId: string | null,
  select: (t: ThreadState | undefined) => S,
): S {
  return useEngine((s) => select(threadId ? s.byId[threadId] : undefined));
}

/** Re-render on language switches (memoized children still receive new props via keys). */
export function useLocale(): string {
  return useStore(i18nStore, (s) => `${s.locale}:${s.active ? 1 : 0}`);
}
