/**
 * The recording of a demonstration, on the worker's side (issue 27): one at a time, in one tab.
 *
 * It arms the tab's content scripts (content-scripts/recorder.ts), collects the steps they send,
 * adds the navigations the user made themselves, and re-arms each new document of the tab. Stop
 * reads the last page for the final check and keeps the recording until it is saved or discarded,
 * so the user can review it. Its state lives in session storage: a worker restart in the middle
 * of a recording loses no step and keeps recording.
 *
 * Effects are injected (`RecorderHost`): the chrome.* side is src/background/recording-wiring.ts;
 * tests drive it with a fake.
 */
import type { RecordedStep } from '../../../content-scripts/recorder';
import {
  collapse,
  deriveRecording,
  type DerivedRecording,
  type FinalPage,
  type RecordingReview,
} from './derive-recording';
import type { RecordedEntry } from './recorded-step';

export interface RecorderHost {
  /** The tab's URL, or undefined when the tab does not exist. */
  tabUrl(tabId: number): Promise<string | undefined>;
  /** Arms (or, with null, disarms) every frame of the tab; injects the content script where missing. */
  arm(tabId: number, recordingId: string | null): Promise<void>;
  /** What the tab's page shows now (texts and headings of its outline), for the final check. */
  finalPage(tabId: number): Promise<FinalPage | undefined>;
  load(): Promise<RecordingState | undefined>;
  save(state: RecordingState | undefined): Promise<void>;
  newId(): string;
  now(): number;
}

export interface RecordingState {
  recordingId: string;
  tabId: number;
  phase: 'recording' | 'stopped';
  startedAt: number;
  startUrl?: string;
  entries: RecordedEntry[];
  /** When the last step arrived: a navigation soon after it is that step's doing. */
  lastStepAt?: number;
  /** Set on stop. */
  final?: FinalPage;
  /** Why it stopped: the user pressed Stop, or closed the tab. */
  endedBy?: 'user' | 'tab_closed';
}

/** What the panel shows of a recording (the `workflow.recording` event). */
export interface RecordingStatus {
  recordingId: string;
  tabId: number;
  phase: 'recording' | 'stopped';
  endedBy?: 'user' | 'tab_closed';
  /** The steps as the review lists them (their index is what `drop` names). */
  steps: string[];
  inputs: { name: string; default?: string; secret?: boolean }[];
}

export type RecorderRefusal = {
  kind: 'refused';
  code: 'not_found' | 'busy' | 'invalid_command';
  message: string;
};

/** A navigation this soon after the user's last step is that step's doing (a link, a submit). */
export const CAUSED_NAVIGATION_MS = 3000;

export class Recorder {
  private state: RecordingState | undefined;
  private stateLoad: Promise<void> | undefined;
  /** State changes run one at a time (steps and navigations arrive concurrently). */
  private chain: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(s: RecordingStatus | null) => void>();

  constructor(private readonly host: RecorderHost) {}

  /** A recording is running (as far as this worker has loaded its state): keep the worker up. */
  get recording(): boolean {
    return this.state?.phase === 'recording';
  }

  /** Called for every change, with the new status (null: no recording). */
  onChange(listener: (s: RecordingStatus | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async status(): Promise<RecordingStatus | null> {
    await this.ready();
    return this.state ? statusOf(this.state) : null;
  }

  start(tabId: number): Promise<{ kind: 'ok'; status: RecordingStatus } | RecorderRefusal> {
    return this.serial(async () => {
      if (this.state?.phase === 'recording')
        return refuse('busy', 'A recording is already running: stop it first.');
      const url = await this.host.tabUrl(tabId);
      if (url === undefined) return refuse('not_found', `Tab ${tabId} does not exist.`);
      if (!/^https?:/.test(url))
        return refuse('invalid_command', 'Recording works on web pages (http or https) only.');
      const recordingId = this.host.newId();
      // A stopped recording that was never saved is replaced by the new one.
      const state: RecordingState = {
        recordingId,
        tabId,
        phase: 'recording',
        startedAt: this.host.now(),
        startUrl: url,
        entries: [],
      };
      await this.commit(state);
      try {
        await this.host.arm(tabId, recordingId);
      } catch (e) {
        await this.commit(undefined);
        return refuse(
          'invalid_command',
          `Cannot record on this page: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      return { kind: 'ok' as const, status: statusOf(state) };
    });
  }

  /** A step a content script sent. Ignored unless it belongs to the running recording's tab. */
  step(tabId: number, frameId: number, recordingId: string, step: RecordedStep): Promise<void> {
    return this.serial(async () => {
      const s = this.state;
      if (!s || s.phase !== 'recording' || s.recordingId !== recordingId || s.tabId !== tabId)
        return;
      const at = this.host.now();
      await this.commit({
        ...s,
        entries: [...s.entries, { kind: 'page', step, frameId, at }],
        lastStepAt: at,
      });
    });
  }

  /**
   * The tab's top document changed URL. One the user's last step did not cause (the address bar,
   * a bookmark, back) becomes a navigation step; either way the new document is armed when it
   * has loaded (`loaded`).
   */
  navigated(tabId: number, url: string): Promise<void> {
    return this.serial(async () => {
      const s = this.state;
      if (!s || s.phase !== 'recording' || s.tabId !== tabId || !/^https?:/.test(url)) return;
      const at = this.host.now();
      const caused = s.lastStepAt !== undefined && at - s.lastStepAt < CAUSED_NAVIGATION_MS;
      const last = s.entries[s.entries.length - 1];
      const lastUrl =
        last?.kind === 'navigate' ? last.url : last?.kind === 'page' ? last.step.url : s.startUrl;
      if (caused || url === lastUrl) return;
      await this.commit({ ...s, entries: [...s.entries, { kind: 'navigate', url, at }] });
    });
  }

  /** A document of the tab finished loading: arm it (the content script starts disarmed). */
  async loaded(tabId: number): Promise<void> {
    await this.ready();
    const s = this.state;
    if (!s || s.phase !== 'recording' || s.tabId !== tabId) return;
    await this.host.arm(tabId, s.recordingId).catch(() => undefined);
  }

  /** The recording's tab closed: the recording stops there, its steps kept for review. */
  tabClosed(tabId: number): Promise<void> {
    return this.serial(async () => {
      const s = this.state;
      if (!s || s.phase !== 'recording' || s.tabId !== tabId) return;
      await this.commit({ ...s, phase: 'stopped', endedBy: 'tab_closed' });
    });
  }

  stop(recordingId: string): Promise<{ kind: 'ok'; status: RecordingStatus } | RecorderRefusal> {
    return this.serial(async () => {
      const s = this.state;
      if (!s || s.recordingId !== recordingId)
        return refuse('not_found', `Recording ${recordingId} does not exist.`);
      if (s.phase === 'stopped') return { kind: 'ok' as const, status: statusOf(s) };
      await this.host.arm(s.tabId, null).catch(() => undefined);
      const final = await this.host.finalPage(s.tabId).catch(() => undefined);
      const next: RecordingState = {
        ...s,
        phase: 'stopped',
        endedBy: 'user',
        ...(final ? { final } : {}),
      };
      await this.commit(next);
      return { kind: 'ok' as const, status: statusOf(next) };
    });
  }

  /** The workflow the stopped recording makes, after the user's review (nothing is changed). */
  async derive(
    recordingId: string,
    review: RecordingReview,
    storedSecret?: (url: string) => string | undefined,
  ): Promise<DerivedRecording | RecorderRefusal> {
    await this.ready();
    const s = this.state;
    if (!s || s.recordingId !== recordingId)
      return refuse('not_found', `Recording ${recordingId} does not exist.`);
    if (s.phase !== 'stopped')
      return refuse('invalid_command', 'Stop the recording before saving it.');
    return deriveRecording(s.entries, {
      startUrl: s.startUrl,
      final: s.final,
      review,
      ...(storedSecret ? { storedSecret } : {}),
    });
  }

  /** Forget the recording (after it was saved, or when the user discards it). */
  discard(recordingId: string): Promise<{ kind: 'ok' } | RecorderRefusal> {
    return this.serial(async () => {
      const s = this.state;
      if (!s || s.recordingId !== recordingId)
        return refuse('not_found', `Recording ${recordingId} does not exist.`);
      if (s.phase === 'recording') await this.host.arm(s.tabId, null).catch(() => undefined);
      await this.commit(undefined);
      return { kind: 'ok' as const };
    });
  }

  private ready(): Promise<void> {
    this.stateLoad ??= this.host.load().then(
      (s) => {
        this.state = s;
      },
      () => undefined,
    );
    return this.stateLoad;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(() => this.ready()).then(fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async commit(state: RecordingState | undefined): Promise<void> {
    await this.host.save(state);
    this.state = state;
    const status = state ? statusOf(state) : null;
    for (const l of this.listeners) l(status);
  }
}

function refuse(code: RecorderRefusal['code'], message: string): RecorderRefusal {
  return { kind: 'refused', code, message };
}

/** The review's view: steps as they would be saved, and the inputs they make. */
export function statusOf(s: RecordingState): RecordingStatus {
  const derived = deriveRecording(s.entries, { startUrl: s.startUrl, final: s.final });
  const steps =
    derived.kind === 'ok'
      ? derived.workflow.steps.map((x) => x.summary)
      : collapse(s.entries).map(() => '');
  return {
    recordingId: s.recordingId,
    tabId: s.tabId,
    phase: s.phase,
    ...(s.endedBy ? { endedBy: s.endedBy } : {}),
    steps,
    inputs:
      derived.kind === 'ok'
        ? derived.workflow.inputs.map((i) => ({
            name: i.name,
            ...(i.default !== undefined ? { default: i.default } : {}),
            ...(i.secret ? { secret: true } : {}),
          }))
        : [],
  };
}
