import { useState } from 'preact/hooks';
import type { OpOutcome } from '../../state/engine-client';

export type SaveStatus =
  | { kind: 'idle' }
  | { kind: 'saving' }
  | { kind: 'saved' }
  | { kind: 'error'; message: string };

/** Runs a settings op and keeps its status for a small "Saved" / error line under the section. */
export function useSave(): [SaveStatus, (op: () => Promise<OpOutcome>) => Promise<boolean>] {
  const [status, setStatus] = useState<SaveStatus>({ kind: 'idle' });
  const run = async (op: () => Promise<OpOutcome>) => {
    setStatus({ kind: 'saving' });
    const out = await op();
    setStatus(out.ok ? { kind: 'saved' } : { kind: 'error', message: out.message || out.code });
    return out.ok;
  };
  return [status, run];
}
