/**
 * The property of `window`, in the page's own world, under which Keel's WebMCP registry answers
 * the service worker (content-scripts/webmcp/page-registry.ts). Defined at document_start, before
 * any page script, and not configurable; the page can still read and call it (it only reaches the
 * page's own tools).
 */
export const BRIDGE_KEY = 'keel.webmcp.bridge';
