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
  constructor(private readonly db: KeelDB) {}

  async get(): Promise<SettingsRecord> {
    return (await this.db.settings.get('main')) ?? defaultSettings();
  }

  async put(s: SettingsRecord): Promise<void> {
    await this.db.settings.put({ ...s, revision: s.revision + 1 });
  }
}
