/*
 * Installed in the side panel page before its scripts run (addInitScript). Plain JavaScript: it is
 * injected as a string. It timestamps, on the page's own clock (performance.timeOrigin + now, ms):
 * - port:  when a message reaches the panel's engine Port (our listener is added before the
 *          panel's own, so this is arrival, before the panel handles it);
 * - dom:   when a streamed token first appears in the document (MutationObserver callback);
 * - frame: after the next frame was produced (a task posted from its requestAnimationFrame callback
 *          runs once that frame's style, layout and paint are done);
 * - snapshot / rendered: when a thread snapshot of the watched thread arrives, and when the
 *          watched number of rows is in the document (then the next frame).
 * Tokens are words like k3w017 (turn 3, delta 17) in the streamed text.
 */
(() => {
  const now = () => performance.timeOrigin + performance.now();
  const TOKEN = /k\d+w\d+/g;
  const B = (globalThis.__keelBench = {
    port: {},
    dom: {},
    frame: {},
    // { threadId, rows }: set through sessionStorage before a reload, so it is there from the start
    watch: (() => {
      try {
        return JSON.parse(sessionStorage.getItem('keel.bench.watch') || 'null');
      } catch {
        return null;
      }
    })(),
    snapshotAt: null,
    renderedAt: null,
    renderedFrameAt: null,
    messages: 0,
    take() {
      const out = { port: this.port, dom: this.dom, frame: this.frame };
      this.port = {};
      this.dom = {};
      this.frame = {};
      return out;
    },
  });

  const runtime = globalThis.chrome && globalThis.chrome.runtime;
  if (runtime && typeof runtime.connect === 'function') {
    const connect = runtime.connect.bind(runtime);
    runtime.connect = function () {
      const port = connect.apply(null, arguments);
      port.onMessage.addListener((msg) => {
        const t = now();
        B.messages += 1;
        if (!msg || typeof msg !== 'object') return;
        if (msg.type === 'item.delta' && msg.delta && typeof msg.delta.text === 'string') {
          for (const tok of msg.delta.text.match(TOKEN) || [])
            if (!(tok in B.port)) B.port[tok] = t;
        }
        const w = B.watch;
        if (w && B.snapshotAt === null) {
          const has =
            (msg.type === 'thread.snapshot' &&
              msg.snapshot &&
              msg.snapshot.thread.threadId === w.threadId) ||
            (msg.type === 'initialized' &&
              Array.isArray(msg.snapshots) &&
              msg.snapshots.some((s) => s.thread.threadId === w.threadId));
          if (has) B.snapshotAt = t;
        }
      });
      return port;
    };
  }

  const afterNextFrame = (fn) =>
    requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => fn();
      ch.port2.postMessage(0);
    });

  const scan = () => {
    const t = now();
    let fresh = false;
    for (const el of document.querySelectorAll('.msg.assistant')) {
      for (const tok of (el.textContent || '').match(TOKEN) || []) {
        if (!(tok in B.dom)) {
          B.dom[tok] = t;
          fresh = true;
        }
      }
    }
    if (fresh) {
      const toks = Object.keys(B.dom).filter((k) => !(k in B.frame));
      afterNextFrame(() => {
        const f = now();
        for (const k of toks) if (!(k in B.frame)) B.frame[k] = f;
      });
    }
    const w = B.watch;
    if (w && B.snapshotAt !== null && B.renderedAt === null) {
      const list = document.querySelector(`.messages[data-thread-id="${w.threadId}"]`);
      if (list && list.querySelectorAll('[data-item-id]').length >= w.rows) {
        B.renderedAt = t;
        afterNextFrame(() => {
          B.renderedFrameAt = now();
        });
      }
    }
  };
  const start = () =>
    new MutationObserver(scan).observe(document.documentElement, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  if (document.documentElement) start();
  else document.addEventListener('readystatechange', start, { once: true });
})();
