import type { KeelDB } from './db';
import { RECORD_VERSION, type SiteRuleRecord } from './records';
import type { SiteRule } from '../protocol';

/** Per-origin permission rules. 'ask' is the default and is stored only when set explicitly. */
export class SiteRulesRepo {
  constructor(private readonly db: KeelDB) {}

  get(origin: string): Promise<SiteRuleRecord | undefined> {
    return this.db.siteRules.get(origin);
  }

  list(): Promise<SiteRuleRecord[]> {
    return this.db.siteRules.toArray();
  }

  /** `pageToolsRead` unset keeps what the site had. */
  async set(
    origin: string,
    rule: SiteRule,
    now: number,
    pageToolsRead?: boolean,
  ): Promise<SiteRuleRecord> {
    const prev = await this.db.siteRules.get(origin);
    const reads = pageToolsRead ?? prev?.pageToolsRead ?? false;
    const rec: SiteRuleRecord = {
      v: RECORD_VERSION,
      origin,
      rule,
      version: (prev?.version ?? 0) + 1,
      updatedAt: now,
      ...(reads ? { pageToolsRead: true } : {}),
    };
    await this.db.siteRules.put(rec);
    return rec;
  }

  /** Forgets the rule (an MCP server that was removed): the next lookup is the default, ask. */
  async remove(origin: string): Promise<void> {
    await this.db.siteRules.delete(origin);
  }
}
