import { CommittedMap } from './committed-map';
import type { KeelDB } from './db';
import { RECORD_VERSION, type SettingsRecord } from './records';

export function defaultSettings(): SettingsRecord {
  return {
    v: RECORD_VERSION,
    key: 'main',
    providers: [],
    defaultModel: null,
    taskModel: null,
    tokenBudget: null,
    approvalMode: 'ask',
    locale: null,
    mcpServers: [],
    revision: 0,
  };
}

export class SettingsRepo {
  /** The committed settings record (committed-map.ts): every model call reads it. */
  private readonly cache: CommittedMap<SettingsRecord>;

  constructor(private readonly db: KeelDB) {
    this.cache = new CommittedMap(db.tracker);
  }

  /** The settings, as the caller's own copy (callers change and put it back). */
  async get(): Promise<SettingsRecord> {
    const hit = this.cache.lookup('main');
    if (hit) return hit.value ? structuredClone(hit.value) : defaultSettings();
    const token = this.cache.readToken();
    const rec = await this.db.settings.get('main');
    if (!rec) return defaultSettings();
    this.cache.fill('main', structuredClone(rec), token);
    return rec;
  }

  async put(s: SettingsRecord): Promise<void> {
    const rec = { ...s, revision: s.revision + 1 };
    await this.db.writing([this.db.settings], () =>
      this.cache.writeThrough('main', structuredClone(rec), () => this.db.settings.put(rec)),
    );
  }
}
