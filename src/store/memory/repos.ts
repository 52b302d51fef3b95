import type { SiteRule } from '../../protocol';
import type { MemoryAccess } from './tables';
import {
  RECORD_VERSION,
  type ApprovalRecord,
  type InteractionRecord,
  type ReceiptOutcome,
  type ReceiptRecord,
  type SettingsRecord,
  type SiteRuleRecord,
  type SkillRecord,
  type WorkflowRecord,
} from '../records';
import { defaultSettings } from '../settings-repo';

// The in-memory store's small repositories (store.ts has the store, threads and runs).

/** Approvals and interactions share a shape: records of a run, some still pending. */
class MemoryPending<T extends { runId: string; threadId: string; status: string }> {
  constructor(
    private readonly a: MemoryAccess,
    private readonly table: 'approvals' | 'interactions',
    private readonly keyOf: (rec: T) => string,
  ) {}

  get(id: string): Promise<T | undefined> {
    return this.a.run(() => this.a.get<T>(this.table, id));
  }

  put(rec: T): Promise<void> {
    return this.a.run(() => this.a.put(this.table, this.keyOf(rec), rec));
  }

  byThread(threadId: string): Promise<T[]> {
    return this.a.run(() => this.a.select<T>(this.table, (x) => x.threadId === threadId));
  }

  pendingForRun(runId: string): Promise<T[]> {
    return this.a.run(() =>
      this.a.select<T>(this.table, (x) => x.runId === runId && x.status === 'pending'),
    );
  }

  deleteByThread(threadId: string): Promise<void> {
    return this.a.run(() => void this.a.deleteWhere<T>(this.table, (x) => x.threadId === threadId));
  }
}

export class MemoryApprovals extends MemoryPending<ApprovalRecord> {
  constructor(a: MemoryAccess) {
    super(a, 'approvals', (r) => r.approvalId);
  }
}

export class MemoryInteractions extends MemoryPending<InteractionRecord> {
  constructor(a: MemoryAccess) {
    super(a, 'interactions', (r) => r.interactionId);
  }
}

export class MemoryReceipts {
  constructor(private readonly a: MemoryAccess) {}

  get(key: string): Promise<ReceiptRecord | undefined> {
    return this.a.run(() => this.a.get<ReceiptRecord>('receipts', key));
  }

  put(fields: {
    key: string;
    type: string;
    fingerprint: string;
    outcome: ReceiptOutcome;
    now: number;
  }): Promise<void> {
    const rec: ReceiptRecord = {
      v: RECORD_VERSION,
      key: fields.key,
      type: fields.type,
      fingerprint: fields.fingerprint,
      outcome: fields.outcome,
      createdAt: fields.now,
    };
    return this.a.run(() => this.a.put('receipts', fields.key, rec));
  }

  prune(before: number): Promise<number> {
    return this.a.run(() =>
      this.a.deleteWhere<ReceiptRecord>('receipts', (r) => r.createdAt < before),
    );
  }

  count(): Promise<number> {
    return this.a.run(() => this.a.select<ReceiptRecord>('receipts').length);
  }

  /** Keep only the `keep` newest receipts (by creation time); returns how many were deleted. */
  pruneToNewest(keep: number): Promise<number> {
    return this.a.run(() => {
      const all = this.a
        .select<ReceiptRecord>('receipts')
        .sort((x, y) => x.createdAt - y.createdAt);
      const excess = all.length - keep;
      if (excess <= 0) return 0;
      for (const r of all.slice(0, excess)) this.a.delete('receipts', r.key);
      return excess;
    });
  }
}

export class MemorySiteRules {
  constructor(private readonly a: MemoryAccess) {}

  get(origin: string): Promise<SiteRuleRecord | undefined> {
    return this.a.run(() => this.a.get<SiteRuleRecord>('siteRules', origin));
  }

  list(): Promise<SiteRuleRecord[]> {
    return this.a.run(() => this.a.select<SiteRuleRecord>('siteRules'));
  }

  set(origin: string, rule: SiteRule, now: number): Promise<SiteRuleRecord> {
    return this.a.run(() => {
      const prev = this.a.get<SiteRuleRecord>('siteRules', origin);
      const rec: SiteRuleRecord = {
        v: RECORD_VERSION,
        origin,
        rule,
        version: (prev?.version ?? 0) + 1,
        updatedAt: now,
      };
      this.a.put('siteRules', origin, rec);
      return rec;
    });
  }

  remove(origin: string): Promise<void> {
    return this.a.run(() => void this.a.delete('siteRules', origin));
  }
}

export class MemorySettings {
  constructor(private readonly a: MemoryAccess) {}

  get(): Promise<SettingsRecord> {
    return this.a.run(() => this.a.get<SettingsRecord>('settings', 'main') ?? defaultSettings());
  }

  put(s: SettingsRecord): Promise<void> {
    return this.a.run(() => this.a.put('settings', 'main', { ...s, revision: s.revision + 1 }));
  }
}

export class MemorySkills {
  constructor(private readonly a: MemoryAccess) {}

  list(): Promise<SkillRecord[]> {
    return this.a.run(() => this.a.select<SkillRecord>('skills'));
  }

  get(name: string): Promise<SkillRecord | undefined> {
    return this.a.run(() => this.a.get<SkillRecord>('skills', name));
  }

  put(fields: {
    name: string;
    description: string;
    body: string;
    now: number;
  }): Promise<SkillRecord> {
    return this.a.run(() => {
      const prev = this.a.get<SkillRecord>('skills', fields.name);
      const rec: SkillRecord = {
        v: RECORD_VERSION,
        name: fields.name,
        description: fields.description,
        body: fields.body,
        createdAt: prev?.createdAt ?? fields.now,
        updatedAt: fields.now,
      };
      this.a.put('skills', fields.name, rec);
      return rec;
    });
  }

  remove(name: string): Promise<boolean> {
    return this.a.run(() => this.a.delete('skills', name));
  }
}

export class MemoryWorkflows {
  constructor(private readonly a: MemoryAccess) {}

  /** Every workflow, most recently changed first. */
  list(): Promise<WorkflowRecord[]> {
    return this.a.run(() =>
      this.a.select<WorkflowRecord>('workflows').sort((x, y) => y.updatedAt - x.updatedAt),
    );
  }

  get(workflowId: string): Promise<WorkflowRecord | undefined> {
    return this.a.run(() => this.a.get<WorkflowRecord>('workflows', workflowId));
  }

  put(rec: WorkflowRecord): Promise<void> {
    return this.a.run(() => this.a.put('workflows', rec.workflowId, rec));
  }

  /** Read-modify-write; undefined when the workflow does not exist. */
  update(
    workflowId: string,
    fn: (rec: WorkflowRecord) => WorkflowRecord,
  ): Promise<WorkflowRecord | undefined> {
    return this.a.run(() => {
      const cur = this.a.get<WorkflowRecord>('workflows', workflowId);
      if (!cur) return undefined;
      const next = fn(cur);
      this.a.put('workflows', workflowId, next);
      return next;
    });
  }

  remove(workflowId: string): Promise<boolean> {
    return this.a.run(() => this.a.delete('workflows', workflowId));
  }
}
