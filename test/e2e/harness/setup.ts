/**
 * Runs before every e2e file (vitest.e2e.config.ts `setupFiles`).
 *
 * The browser now outlives a file (shared-browser.ts), and Chromium keeps sockets open to the
 * file's loopback servers: idle keep-alives, and speculative preconnects that never send a request,
 * which Node's `server.close()` leaves open until its 60 s header timeout. When each file had its
 * own browser, closing the browser ended them. Here closing a test server ends its connections.
 */
import * as http from 'node:http';
import * as https from 'node:https';

const PATCHED = Symbol.for('keel.e2e.closeEndsConnections');

for (const proto of [http.Server.prototype, https.Server.prototype] as Array<
  http.Server & { [PATCHED]?: true }
>) {
  if (proto[PATCHED]) continue;
  const close = proto.close;
  proto.close = function closeAndEndConnections(this: http.Server, ...args) {
    const result = close.apply(this, args);
    this.closeAllConnections();
    return result;
  } as typeof proto.close;
  proto[PATCHED] = true;
}
