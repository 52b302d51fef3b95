/** An extension page (like the side panel) trying to drive the content script: it must be ignored. */
(globalThis as unknown as { probe: (tabId: number) => Promise<unknown> }).probe = async (
  tabId: number,
) => {
  try {
    const reply = await chrome.tabs.sendMessage(
      tabId,
      { channel: 'keel.page.v1', request: { op: 'ping' } },
      { frameId: 0 },
    );
    return { replied: true, reply };
  } catch (e) {
    return { replied: false, error: e instanceof Error ? e.message : String(e) };
  }
};
