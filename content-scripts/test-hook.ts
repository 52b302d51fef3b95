/**
 * Test and benchmark entry: the same PageAgent, reachable from the page as `window.__keelTest`
 * instead of over chrome.runtime. Bundled only into test builds (never shipped): a page-visible
 * hook in production would let any page drive the agent.
 */
import * as z from 'zod/mini';
import { createBrowserEnv } from './env';
import { createPageAgent, type PageAgent } from './page-agent';

z.config({ jitless: true });

declare global {
  interface Window {
    __keelTest?: PageAgent;
  }
}

if (!window.__keelTest) window.__keelTest = createPageAgent(createBrowserEnv(window));
