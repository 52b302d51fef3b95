/**
 * The built-in demo model: an OpenAI-compatible endpoint whose replies come from the scripted
 * shopper (shopper.ts). Title requests (the engine's small side task) get a fixed title.
 */
import { startChatServer, type ChatServer, type Reply } from '../openai-server';
import type { ChatMessage } from './conversation';
import { decide } from './shopper';

export const DEMO_MODEL_ID = 'keel-demo-model';

export function startDemoModel(): Promise<ChatServer> {
  return startChatServer({
    respond(req): Reply {
      if (req.isTitle) return { text: 'Cheapest USB-C cable, two to cart' };
      const move = decide((req.body.messages ?? []) as ChatMessage[]);
      // Stream the text word by word at a readable pace, like a model would.
      return { text: move.text, toolCalls: move.toolCall ? [move.toolCall] : [], deltaDelayMs: 8 };
    },
  });
}

/** The settings patch that makes the demo model Keel's provider and default model. */
export function demoModelSettings(model: ChatServer) {
  return {
    providers: [
      { id: 'keel-demo', kind: 'openai' as const, apiKey: 'demo-key', baseURL: model.baseURL },
    ],
    defaultModel: { providerId: 'keel-demo', model: DEMO_MODEL_ID },
  };
}
