import type { SecretSource } from '../../secrets/site-secrets';
import type { DebuggerSessions } from './debugger-sessions';
import type { DevtoolsCapture } from './devtools/devtools-capture';
import type { BrowserHost } from './host';
import type { PageClient } from './page-client';
import type { ActionPictures } from './task-frames/action-pictures';

/** What every browser tool is built from (one instance per service worker). */
export interface BrowserToolDeps {
  host: BrowserHost;
  client: PageClient;
  debuggers: DebuggerSessions;
  /** The console and network logs recorded through `debuggers` (browser_console, browser_network). */
  devtools: DevtoolsCapture;
  /**
   * Where the picture of the tab after each action goes, off the step's path: set when the task
   * is recorded and pictures are on; without it no picture is taken.
   */
  pictures?: ActionPictures;
  /** Site secrets, for browser_type's placeholders (src/secrets). */
  secrets?: SecretSource;
}
