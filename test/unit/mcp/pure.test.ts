import { describe, expect, it, vi } from 'vitest';
import { CallTimer } from '../../../src/tools/mcp/call-timer';
import { linkingFetch } from '../../../src/tools/mcp/call-streams';
import { toElicitResult, validateElicitationResponse } from '../../../src/tools/mcp/elicitation';
import { base64Bytes, toToolResult } from '../../../src/tools/mcp/results';
import { mcpToolName } from '../../../src/tools/mcp/tool-names';

const free = () => false;

describe('mcpToolName', () => {
  it('keeps valid names and cleans others into distinct, stable, valid names', () => {
    expect(mcpToolName('srv', 'get-sum', free)).toBe('mcp__srv__get-sum');
    const dotted = mcpToolName('srv', 'a.b', free);
    const slashed = mcpToolName('srv', 'a/b', free);
    expect(dotted).toMatch(/^mcp__srv__a_b_[0-9a-f]{8}$/);
    expect(slashed).toMatch(/^mcp__srv__a_b_[0-9a-f]{8}$/);
    expect(dotted).not.toBe(slashed);
    expect(mcpToolName('srv', 'a.b', free)).toBe(dotted);
    expect(mcpToolName('srv', 'ünïcødé tool', free)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('clips long names to 64 characters, keeping them apart', () => {
    const id = 'x'.repeat(40);
    const a = mcpToolName(id, 'very-long-tool-name-number-one', free);
    const b = mcpToolName(id, 'very-long-tool-name-number-two', free);
    for (const n of [a, b]) expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(a).not.toBe(b);
  });

  it('moves away from a name another server already owns', () => {
    const taken = new Set(['mcp__a___x']);
    const name = mcpToolName('a', '_x', (n) => taken.has(n));
    expect(name).not.toBe('mcp__a___x');
    expect(name).toMatch(/^mcp__a___x_[0-9a-f]{8}$/);
  });
});

describe('toToolResult', () => {
  const opts = { serverId: 's', serverTool: 't', vision: false };
  const png = 'iVBORw0KGgo='; // 8 bytes

  it('passes text, summarizes resources and audio, and flags errors', () => {
    const r = toToolResult(
      {
        isError: true,
        content: [
          { type: 'text', text: 'hello' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
          {
            type: 'resource',
            resource: { uri: 'mem://x', mimeType: 'text/plain', text: 'inside' },
          },
          {
            type: 'resource',
            resource: { uri: 'mem://y', mimeType: 'application/zip', blob: 'AAAA' },
          },
        ],
      },
      opts,
    );
    expect(r.isError).toBe(true);
    expect(r.content.map((b) => (b.type === 'text' ? b.text : b.type))).toEqual([
      'hello',
      '[audio: audio/wav, 3 bytes — not shown: audio is not supported]',
      '[resource link: a.txt <file:///a.txt> (text/plain)]',
      '[resource <mem://x> (text/plain)]\ninside',
      '[resource <mem://y>: application/zip, 3 bytes — binary content not shown]',
    ]);
    expect(r.details).toMatchObject({
      isError: true,
      omitted: [{ type: 'audio' }, { type: 'resource', uri: 'mem://y' }],
    });
  });

  it('shows images only to models with vision, and only in types providers accept', () => {
    const content = [{ type: 'image' as const, data: png, mimeType: 'image/png' }];
    expect(toToolResult({ content }, opts).content).toEqual([
      {
        type: 'text',
        text: '[image: image/png, 8 bytes — not shown: this model cannot see images]',
      },
    ]);
    expect(toToolResult({ content }, { ...opts, vision: true }).content).toEqual([
      { type: 'image', mimeType: 'image/png', dataBase64: png },
    ]);
    expect(
      toToolResult(
        { content: [{ type: 'image', data: png, mimeType: 'image/bmp' }] },
        { ...opts, vision: true },
      ).content[0],
    ).toMatchObject({
      type: 'text',
      text: expect.stringContaining('unsupported image type'),
    });
  });

  it('shows structured content when there is no text, and says when there is nothing', () => {
    expect(toToolResult({ content: [], structuredContent: { a: 1 } }, opts).content).toEqual([
      { type: 'text', text: '{"a":1}' },
    ]);
    expect(toToolResult({ content: [] }, opts).content).toEqual([
      { type: 'text', text: 'The tool returned no content.' },
    ]);
  });

  it('bounds the text a server can push into the context', () => {
    const r = toToolResult(
      {
        content: [
          { type: 'text', text: 'x'.repeat(150_000) },
          { type: 'text', text: 'more' },
        ],
      },
      opts,
    );
    const total = r.content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
    expect(total).toBeLessThan(100_100);
    expect(r.details).toMatchObject({ truncated: true });
  });

  it('counts base64 bytes', () => {
    expect(base64Bytes('')).toBe(0);
    expect(base64Bytes('AAAA')).toBe(3);
    expect(base64Bytes('AAA=')).toBe(2);
    expect(base64Bytes('AA==')).toBe(1);
  });
});

describe('elicitation responses', () => {
  const payload = {
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2 },
        age: { type: 'integer', default: 30 },
        email: { type: 'string', format: 'email' },
      },
      required: ['name', 'age'],
    },
  };

  it('maps the UI answer to the MCP result; anything else is a cancel', () => {
    expect(toElicitResult({ action: 'accept', content: { name: 'Ann' } })).toEqual({
      action: 'accept',
      content: { name: 'Ann' },
    });
    expect(toElicitResult({ action: 'accept' })).toEqual({ action: 'accept', content: {} });
    expect(toElicitResult({ action: 'decline' })).toEqual({ action: 'decline' });
    expect(toElicitResult({ action: 'cancel' })).toEqual({ action: 'cancel' });
    expect(toElicitResult({ answer: 'yes' })).toEqual({ action: 'cancel' });
    expect(toElicitResult({ action: 'accept', content: { nested: { no: 1 } } })).toEqual({
      action: 'cancel',
    });
  });

  it('validates accepted content against the requested schema, defaults applied', () => {
    expect(
      validateElicitationResponse(payload, { action: 'accept', content: { name: 'Ann' } }),
    ).toBeNull();
    expect(validateElicitationResponse(payload, { action: 'decline' })).toBeNull();
    expect(
      validateElicitationResponse(payload, { action: 'accept', content: { name: 'A' } }),
    ).toMatch(/name/);
    expect(
      validateElicitationResponse(payload, {
        action: 'accept',
        content: { name: 'Ann', email: 'nope' },
      }),
    ).toMatch(/email/);
    expect(validateElicitationResponse(payload, { action: 'accept', content: {} })).toMatch(/name/);
    expect(validateElicitationResponse(payload, { yes: true })).toMatch(/action/);
  });
});

describe('CallTimer', () => {
  it('expires when idle, is re-armed by progress, and stops counting while paused', () => {
    vi.useFakeTimers();
    try {
      const expired: string[] = [];
      const t = new CallTimer(100, 1_000, (k) => expired.push(k));
      t.start();
      vi.advanceTimersByTime(90);
      t.touch();
      vi.advanceTimersByTime(90);
      expect(expired).toEqual([]);
      t.pause();
      vi.advanceTimersByTime(5_000);
      expect(expired).toEqual([]);
      t.resume();
      vi.advanceTimersByTime(100);
      expect(expired).toEqual(['idle']);

      const total: string[] = [];
      const u = new CallTimer(100, 250, (k) => total.push(k));
      u.start();
      for (let i = 0; i < 5; i++) {
        vi.advanceTimersByTime(60);
        u.touch();
      }
      expect(total).toEqual(['total']);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('linkingFetch', () => {
  it('links a server request on a call stream to the call, passing the bytes through', async () => {
    const sse =
      'id: 1\n\ndata: {"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}\r\n\r\ndata: {"jsonrpc":"2.0","id":3,"result":{}}\n\n';
    const bytes = new TextEncoder().encode(sse);
    const base = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            // Split mid-line and between \r and \n to exercise the framing.
            for (const cut of [
              [0, 20],
              [20, 77],
              [77, 78],
              [78, bytes.length],
            ])
              c.enqueue(bytes.slice(cut[0], cut[1]));
            c.close();
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const links: [string, string | number][] = [];
    const f = linkingFetch(base, (ref, id) => links.push([ref, id]));
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'x', _meta: { 'keel/call-ref': 'c9' } },
    });
    const res = await f('http://127.0.0.1/mcp', { method: 'POST', body });
    expect(await res.text()).toBe(sse);
    expect(links).toEqual([['c9', 7]]);
  });
});
