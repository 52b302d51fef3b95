/*
 * One timed turn from inside an extension page, without sending each event to the benchmark
 * process (the e2e EngineClient forwards every event to Node, which costs CPU the worker competes
 * for on a small machine). Plain JavaScript, evaluated as a string: `(source)(text, threadId?)`
 * resolves with { ms, threadId } — ms from posting turn.submit to receiving its turn.complete, on
 * a new thread unless `threadId` names one.
 */
(async function timedTurnInPage(text, existingThreadId) {
  const port = chrome.runtime.connect({ name: 'engine' });
  const clientId = `bench-page-${Math.random().toString(36).slice(2)}`;
  let n = 0;
  const waiters = [];
  port.onMessage.addListener((ev) => {
    for (const w of waiters.slice())
      if (w.match(ev)) waiters.splice(waiters.indexOf(w), 1), w.resolve(ev);
  });
  const waitFor = (match, ms = 120000) =>
    new Promise((resolve, reject) => {
      const w = { match, resolve: (ev) => (clearTimeout(t), resolve(ev)) };
      const t = setTimeout(() => reject(new Error('turn-client: timed out')), ms);
      waiters.push(w);
    });
  const send = async (op) => {
    const submissionId = `${clientId}-${++n}`;
    const answer = waitFor(
      (ev) =>
        (ev.type === 'command.ack' || ev.type === 'command.reject') &&
        ev.submissionId === submissionId,
    );
    port.postMessage({ ...op, clientId, submissionId });
    const a = await answer;
    if (a.type !== 'command.ack') throw new Error(`${op.type} rejected: ${a.code}: ${a.message}`);
    return a.result || {};
  };
  try {
    await send({ type: 'initialize', subscribe: [] });
    const threadId = existingThreadId || (await send({ type: 'thread.create' })).threadId;
    await send({ type: 'thread.subscribe', threadId });
    const complete = waitFor((ev) => ev.type === 'turn.complete' && ev.threadId === threadId);
    const t0 = performance.now();
    await send({ type: 'turn.submit', threadId, input: { text } });
    const done = await complete;
    const ms = performance.now() - t0;
    if (done.stopReason !== 'end') throw new Error(`turn ended ${done.stopReason}`);
    return { ms, threadId };
  } finally {
    port.disconnect();
  }
});
