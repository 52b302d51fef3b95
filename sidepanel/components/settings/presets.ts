import type { ProviderKind, PublicProvider } from '../../../src/protocol';
import { ANTHROPIC_MODELS, OPENAI_MODELS } from '../../../src/providers/catalog';

/** Starting points for "Add provider": a kind, a default endpoint, and whether a key is needed. */
export interface ProviderPreset {
  id: string;
  label: string;
  kind: ProviderKind;
  baseURL?: string;
  /** Local servers usually run without a key. */
  keyOptional?: boolean;
  /** The user may point these at another endpoint. */
  editableURL?: boolean;
  /** Chat model to select when this is the first provider (a catalog id the engine knows). */
  defaultModel?: string;
}

export const PROVIDER_PRESETS: ProviderPreset[] = [
  { id: 'anthropic', label: 'Anthropic', kind: 'anthropic', defaultModel: 'claude-sonnet-4-5' },
  { id: 'openai', label: 'OpenAI', kind: 'openai', defaultModel: 'gpt-5-mini' },
  {
    id: 'openai-responses',
    label: 'OpenAI (Responses API)',
    kind: 'openai-responses',
    defaultModel: 'gpt-5-mini',
  },
  {
    id: 'openrouter',
    label: 'OpenRouter',
    kind: 'openai',
    baseURL: 'https://openrouter.ai/api/v1',
  },
  {
    id: 'ollama',
    label: 'Ollama',
    kind: 'openai',
    baseURL: 'http://localhost:11434/v1',
    keyOptional: true,
    editableURL: true,
  },
  {
    id: 'lmstudio',
    label: 'LM Studio',
    kind: 'openai',
    baseURL: 'http://localhost:1234/v1',
    keyOptional: true,
    editableURL: true,
  },
  {
    id: 'custom',
    label: 'OpenAI-compatible',
    kind: 'openai',
    baseURL: 'https://',
    editableURL: true,
  },
];

/** A provider id not yet taken: the preset id, then -2, -3… */
export function freeProviderId(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

export function validBaseURL(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !!u.host;
  } catch {
    return false;
  }
}

/** Model ids to suggest for a provider: its own list, then the catalog for the official APIs. */
export function modelSuggestions(provider: PublicProvider | undefined): string[] {
  if (!provider) return [];
  const own = (provider.models ?? []).map((m) => m.id);
  const official = !provider.baseURL;
  const catalog =
    provider.kind === 'anthropic'
      ? Object.keys(ANTHROPIC_MODELS)
      : official
        ? Object.keys(OPENAI_MODELS)
        : [];
  return [...new Set([...own, ...catalog])];
}
