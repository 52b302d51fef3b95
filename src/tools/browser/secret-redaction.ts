/**
 * Nothing a browser tool returns carries a site secret's value (issue 28): a page that echoes a
 * typed password or username ("Signed in as alice"), a field whose value a snapshot shows, an
 * error that quotes the page. Every result, progress update and error message of every browser
 * tool has each stored value replaced by its placeholder before the engine records it, so it
 * reaches neither the model nor an event, an export or a log.
 */
import type { AgentTool, ToolResult } from '../types';
import {
  placeholderOf,
  redactDeep,
  redactSecrets,
  type SecretSource,
} from '../../secrets/site-secrets';

type Known = { placeholder: string; value: string }[];

/** Every stored site secret's value with its placeholder (none without a source). */
export async function knownValues(source: SecretSource | undefined): Promise<Known> {
  if (!source) return [];
  const out: Known = [];
  for (const s of await source.list()) {
    const value = await source.value(s.origin, s.name).catch(() => null);
    if (value) out.push({ placeholder: placeholderOf(s), value });
  }
  return out;
}

export function redactingSecrets<P, D>(
  tool: AgentTool<P, D>,
  source: SecretSource | undefined,
): AgentTool<P, D> {
  if (!source) return tool;
  const execute = tool.execute.bind(tool);
  return {
    ...tool,
    async execute(id, params, signal, onUpdate, ctx): Promise<ToolResult<D>> {
      // Read once per call: a secret stored during the call is redacted from the next one.
      const known = await knownValues(source);
      if (!known.length) return execute(id, params, signal, onUpdate, ctx);
      try {
        const result = await execute(
          id,
          params,
          signal,
          (u) => onUpdate(redactDeep(u, known)),
          ctx,
        );
        return {
          ...result,
          content: result.content.map((b) =>
            b.type === 'text' ? { ...b, text: redactSecrets(b.text, known) } : b,
          ),
          ...(result.details !== undefined ? { details: redactDeep(result.details, known) } : {}),
        };
      } catch (e) {
        if (e instanceof Error && known.some((k) => e.message.includes(k.value)))
          e.message = redactSecrets(e.message, known);
        throw e;
      }
    },
  };
}
