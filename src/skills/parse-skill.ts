/**
 * A SKILL.md file: YAML-style front matter with at least `name` and `description`, then the body
 * (spec/000 "Skills"). Only flat `key: value` front matter is read; anything else is kept out.
 */
export interface ParsedSkill {
  name: string;
  description: string;
  body: string;
}

export const SKILL_LIMITS = { maxBytes: 100_000, maxName: 64, maxDescription: 1024 } as const;

export function parseSkill(text: string): ParsedSkill | { error: string } {
  if (text.length > SKILL_LIMITS.maxBytes)
    return { error: `The skill file is larger than ${SKILL_LIMITS.maxBytes / 1000} kB.` };
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!m)
    return {
      error:
        'A SKILL.md file starts with front matter between two "---" lines (name and description).',
    };
  const fields: Record<string, string> = {};
  for (const line of m[1].split(/\r?\n/)) {
    const kv = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (kv) fields[kv[1].toLowerCase()] = kv[2].trim().replace(/^(['"])(.*)\1$/, '$2');
  }
  const name = (fields.name ?? '').trim();
  const description = (fields.description ?? '').trim();
  if (!name) return { error: 'The front matter has no "name".' };
  if (!/^[a-z0-9][a-z0-9 _.-]*$/i.test(name) || name.length > SKILL_LIMITS.maxName) {
    return {
      error: `The skill name must be letters, digits, spaces, ".", "_" or "-" (at most ${SKILL_LIMITS.maxName}).`,
    };
  }
  if (!description) return { error: 'The front matter has no "description".' };
  if (description.length > SKILL_LIMITS.maxDescription)
    return { error: `The description is longer than ${SKILL_LIMITS.maxDescription} characters.` };
  const body = m[2].trim();
  if (!body) return { error: 'The skill has no instructions after its front matter.' };
  return { name, description, body };
}
