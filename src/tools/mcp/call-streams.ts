import type { FetchLike } from './types';

/**
 * Which of our calls a server request belongs to. A server that needs the user during a tool call
 * (elicitation) sends its request on the SSE stream of that call's POST; the SDK hands the request
 * to us without saying which stream it came on. With several calls in flight on one shared session
 * (two threads), guessing could show one thread's question in another. So every tools/call carries
 * a call reference in `_meta`, and this fetch wrapper reads the POST bodies and watches the
 * responses' SSE events: a server request seen on a call's stream is linked to that call.
 * The bytes reach the SDK unchanged.
 */
export const CALL_REF_META = 'keel/call-ref';

export type ServerRequestLink = (callRef: string, serverRequestId: string | number) => void;

export function linkingFetch(base: FetchLike, link: ServerRequestLink): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    const callRef = init?.method === 'POST' ? callRefOf(init.body) : undefined;
    const type = response.headers.get('content-type') ?? '';
    if (
      !callRef ||
      !response.ok ||
      !response.body ||
      !type.toLowerCase().includes('text/event-stream')
    )
      return response;
    const sniffer = new SseDataSniffer((data) => {
      const id = serverRequestIdOf(data);
      if (id !== undefined) link(callRef, id);
    });
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          sniffer.push(chunk);
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function callRefOf(body: unknown): string | undefined {
  if (typeof body !== 'string' || !body.includes(CALL_REF_META)) return undefined;
  try {
    const msg = JSON.parse(body) as {
      method?: unknown;
      params?: { _meta?: Record<string, unknown> };
    };
    const ref = msg.method === 'tools/call' ? msg.params?._meta?.[CALL_REF_META] : undefined;
    return typeof ref === 'string' ? ref : undefined;
  } catch {
    return undefined;
  }
}

function serverRequestIdOf(data: string): string | number | undefined {
  if (!data.includes('"method"')) return undefined;
  try {
    const msg = JSON.parse(data) as { method?: unknown; id?: unknown };
    if (typeof msg.method !== 'string') return undefined;
    return typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : undefined;
  } catch {
    return undefined;
  }
}

/** The `data` of each SSE event (WHATWG event-stream framing), nothing else. */
class SseDataSniffer {
  private decoder = new TextDecoder();
  private pending = '';
  private data: string[] = [];

  constructor(private readonly onData: (data: string) => void) {}

  push(chunk: Uint8Array): void {
    this.pending += this.decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = this.pending.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.pending.slice(0, at);
      const eol = this.pending.startsWith('\r\n', at) ? 2 : 1;
      // A lone "\r" at the end of a chunk may be the first half of "\r\n": wait for more.
      if (eol === 1 && this.pending[at] === '\r' && at === this.pending.length - 1) return;
      this.pending = this.pending.slice(at + eol);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.onData(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith('data:')) this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }
}
