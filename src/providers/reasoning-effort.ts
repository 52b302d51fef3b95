/**
 * The engine asks for thinking as a token budget (Anthropic's notion); OpenAI models take an effort
 * level. The thresholds follow OpenAI's guidance that low/medium/high reasoning uses roughly a few
 * thousand / ~10K / tens of thousands of reasoning tokens on typical tasks.
 */
export function reasoningEffort(budgetTokens: number): 'low' | 'medium' | 'high' {
  if (budgetTokens <= 4096) return 'low';
  if (budgetTokens <= 16_384) return 'medium';
  return 'high';
}
