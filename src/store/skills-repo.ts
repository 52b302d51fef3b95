import type { KeelDB } from './db';
import { RECORD_VERSION, type SkillRecord } from './records';

export class SkillsRepo {
  constructor(private readonly db: KeelDB) {}

  list(): Promise<SkillRecord[]> {
    return this.db.skills.orderBy('name').toArray();
  }

  get(name: string): Promise<SkillRecord | undefined> {
    return this.db.skills.get(name);
  }

  async put(fields: {
    name: string;
    description: string;
    body: string;
    now: number;
  }): Promise<SkillRecord> {
    const prev = await this.db.skills.get(fields.name);
    const rec: SkillRecord = {
      v: RECORD_VERSION,
      name: fields.name,
      description: fields.description,
      body: fields.body,
      createdAt: prev?.createdAt ?? fields.now,
      updatedAt: fields.now,
    };
    await this.db.skills.put(rec);
    return rec;
  }

  async remove(name: string): Promise<boolean> {
    const had = (await this.db.skills.get(name)) !== undefined;
    await this.db.skills.delete(name);
    return had;
  }
}
