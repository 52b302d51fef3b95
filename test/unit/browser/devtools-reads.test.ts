/**
 * browser_console and browser_network over a fake host: CDP events become entries (console API,
 * uncaught errors, browser log; requests, redirects, failures), filters and the `after` cursor
 * page through long logs and say when they cut, credentials never come back (headers, URL
 * userinfo, values echoed elsewhere, site secrets), and the debugger bar is explained.
 */
import { describe, expect, it } from 'vitest';
import { createBrowserTools } from '../../../src/tools/browser';
import { consoleEntryOf, renderArgs } from '../../../src/tools/browser/devtools/console-entry';
import {
  credentialValues,
  redactHeaders,
  scrubCredentials,
} from '../../../src/tools/browser/devtools/credential-redaction';
import { logPage } from '../../../src/tools/browser/devtools/log-page';
import { entriesFromTiming } from '../../../src/tools/browser/devtools/network-entry';
import type { AgentTool, ToolCallContext, ToolResult } from '../../../src/tools/types';
import type { SecretSource } from '../../../src/secrets/site-secrets';
import { openGateForTests } from '../../../src/gatekeeper/receiver';
import { FakeHost } from './fake-host';

const ctx: ToolCallContext = {
  threadId: 't',
  runId: 'r1',
  gate: openGateForTests(),
  tabId: 1,
  model: { vision: false },
};

const TOKEN = 'Bearer s3cr3t-t0ken-XYZ';
const T0 = 1_800_000_000_000; // epoch ms of the fake clock's "now"

const log = (type: string, text: string, line = 4, ts = T0 - 500) => ({
  method: 'Runtime.consoleAPICalled',
  params: {
    type,
    args: [{ type: 'string', value: text }],
    timestamp: ts,
    stackTrace: {
      callFrames: [
        { functionName: '', url: 'https://shop.example/app.js', lineNumber: line, columnNumber: 2 },
      ],
    },
  },
});

/** A fake tab whose debugger replays `replay` on Runtime.enable / Log.enable (as Chromium does). */
function setup(
  opts: { replay?: { method: string; params: unknown }[]; secrets?: SecretSource } = {},
) {
  const host = new FakeHost();
  host.time = T0;
  host.addTab({ tabId: 1, url: 'https://shop.example/cart', title: 'Cart' });
  const replay = opts.replay ?? [];
  host.debuggerReply = (tabId, method) => {
    const domain = method.split('.')[0];
    if (method.endsWith('.enable'))
      for (const e of replay.filter((r) => r.method.startsWith(`${domain}.`)))
        host.emitDebugger({ tabId, ...e });
    if (method === 'Network.getResponseBody')
      return bodies.get('current') ?? { body: '', base64Encoded: false };
    return {};
  };
  const bodies = new Map<string, { body: string; base64Encoded: boolean }>();
  host.page = (_tab, _frame, req) =>
    req.op === 'resource_timing'
      ? {
          ok: true,
          result: {
            timeOrigin: T0 - 2000,
            entries: [
              {
                name: 'https://shop.example/cart',
                initiatorType: 'navigation',
                startTime: 0,
                duration: 120,
                responseStatus: 200,
                transferSize: 900,
                contentType: 'text/html',
              },
              {
                name: 'https://shop.example/api/missing',
                initiatorType: 'fetch',
                startTime: 300,
                duration: 40,
                responseStatus: 404,
                transferSize: 300,
                contentType: '',
              },
              {
                name: 'https://cdn.other.example/x.js',
                initiatorType: 'script',
                startTime: 310,
                duration: 50,
                responseStatus: 0,
                transferSize: 0,
                contentType: '',
              },
              // Started after recording began: the debugger reports it, not timing.
              {
                name: 'https://shop.example/late',
                initiatorType: 'fetch',
                startTime: 2500,
                duration: 5,
                responseStatus: 200,
                transferSize: 10,
                contentType: '',
              },
            ],
          },
        }
      : { ok: true, result: {} };
  const { tools } = createBrowserTools(host, { thumbnails: false, secrets: opts.secrets });
  const run = async (name: string, params: Record<string, unknown> = {}): Promise<ToolResult> => {
    const t = tools.find((x) => x.name === name) as AgentTool<Record<string, unknown>>;
    return t.execute(
      'id',
      t.parameters.parse(params) as Record<string, unknown>,
      new AbortController().signal,
      () => undefined,
      ctx,
    );
  };
  const net = (method: string, params: Record<string, unknown>) =>
    host.emitDebugger({ tabId: 1, method, params });
  return { host, run, net, bodies };
}

const infoOf = (r: ToolResult) => (r.details as { info?: unknown } | undefined)?.info;

const text = (r: ToolResult) =>
  r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

describe('console entries from CDP events', () => {
  it('renders console calls as DevTools prints them, without calling into the page', () => {
    expect(
      renderArgs([
        { type: 'string', value: '%s has %d items%c' },
        { type: 'string', value: 'cart' },
        { type: 'number', value: 3.7 },
        { type: 'string', value: 'color: red' },
        {
          type: 'object',
          description: 'Object',
          preview: {
            properties: [
              { name: 'a', type: 'number', value: '1' },
              { name: 'b', type: 'string', value: 'x' },
            ],
            overflow: true,
          },
        },
      ]),
    ).toBe('cart has 3 items {a: 1, b: "x", …}');
    expect(consoleEntryOf('Runtime.consoleAPICalled', log('warning', 'careful').params)).toEqual({
      level: 'warning',
      kind: 'console',
      text: 'careful',
      source: 'https://shop.example/app.js:5:3',
      timestamp: T0 - 500,
    });
  });

  it('takes uncaught errors with their stack, and browser entries with the failed URL', () => {
    const ex = consoleEntryOf('Runtime.exceptionThrown', {
      timestamp: 5,
      exceptionDetails: {
        text: 'Uncaught',
        exception: {
          type: 'object',
          subtype: 'error',
          description: 'Error: boom\n    at f (https://shop.example/app.js:3:9)',
        },
        stackTrace: {
          callFrames: [
            {
              functionName: 'f',
              url: 'https://shop.example/app.js',
              lineNumber: 2,
              columnNumber: 8,
            },
            {
              functionName: 'g',
              url: 'https://shop.example/app.js',
              lineNumber: 9,
              columnNumber: 0,
            },
          ],
        },
      },
    });
    expect(ex).toMatchObject({
      level: 'error',
      kind: 'exception',
      text: 'Uncaught Error: boom',
      source: 'https://shop.example/app.js:3:9',
      stack: ['f (https://shop.example/app.js:3:9)', 'g (https://shop.example/app.js:10:1)'],
    });
    expect(
      consoleEntryOf('Log.entryAdded', {
        entry: {
          source: 'network',
          level: 'error',
          text: 'Failed to load resource: the server responded with a status of 404 (Not Found)',
          url: 'https://shop.example/missing',
          timestamp: 7,
        },
      }),
    ).toEqual({
      level: 'error',
      kind: 'browser',
      text: 'Failed to load resource: the server responded with a status of 404 (Not Found)',
      source: 'https://shop.example/missing',
      timestamp: 7,
    });
    expect(consoleEntryOf('Network.requestWillBeSent', {})).toBeNull();
    expect(consoleEntryOf('Runtime.consoleAPICalled', { type: 'endGroup', args: [] })).toBeNull();
  });
});

describe('a page of a long log', () => {
  const entries = Array.from({ length: 10 }, (_, i) => ({ seq: i + 3 }));
  const render = (e: { seq: number }) => `line ${e.seq}`;
  it('takes at most `limit` after the cursor and says where to continue', () => {
    expect(logPage(entries, { limit: 4, maxChars: 1000 }, render)).toEqual({
      lines: ['line 3', 'line 4', 'line 5', 'line 6'],
      first: 3,
      last: 6,
      remaining: 6,
      next: 6,
      cutByChars: false,
    });
    expect(logPage(entries, { after: 10, limit: 4, maxChars: 1000 }, render)).toMatchObject({
      lines: ['line 11', 'line 12'],
      remaining: 0,
    });
    expect(logPage(entries, { after: 12, limit: 4, maxChars: 1000 }, render)).toEqual({
      lines: [],
      remaining: 0,
      cutByChars: false,
    });
  });
  it('stops at the character budget but always shows one entry', () => {
    expect(logPage(entries, { limit: 10, maxChars: 14 }, render)).toMatchObject({
      lines: ['line 3', 'line 4'],
      next: 4,
      cutByChars: true,
    });
    expect(logPage(entries, { limit: 10, maxChars: 1 }, render).lines).toEqual(['line 3']);
  });
});

describe('credential redaction', () => {
  it('replaces credential header values and learns the values to scrub elsewhere', () => {
    expect(
      redactHeaders({
        Authorization: TOKEN,
        Cookie: 'sid=abcdef123456',
        Accept: '*/*',
        'X-Api-Key': 'k',
      }),
    ).toEqual({
      Authorization: '[redacted]',
      Cookie: '[redacted]',
      Accept: '*/*',
      'X-Api-Key': '[redacted]',
    });
    expect(credentialValues('authorization', TOKEN)).toEqual([TOKEN, 's3cr3t-t0ken-XYZ']);
    expect(credentialValues('Cookie', 'a=1; sid=abcdef123456')).toEqual([
      'a=1; sid=abcdef123456',
      'abcdef123456',
    ]);
    expect(credentialValues('Set-Cookie', 'sid=abcdef123456; Path=/; HttpOnly')).toContain(
      'abcdef123456',
    );
    expect(credentialValues('Accept', 'text/html-long-enough')).toEqual([]);
  });
  it('removes URL userinfo and known values from any text', () => {
    expect(scrubCredentials('see https://bob:hunter22@api.example/v1 and ftp://x@y.example/')).toBe(
      'see https://[redacted]@api.example/v1 and ftp://[redacted]@y.example/',
    );
    expect(scrubCredentials('token=s3cr3t-t0ken-XYZ', new Set(['s3cr3t-t0ken-XYZ']))).toBe(
      'token=[redacted]',
    );
  });
  it('keeps Resource Timing entries that started before recording, numbered from the cursor', () => {
    const got = entriesFromTiming(
      {
        timeOrigin: 1000,
        entries: [
          {
            name: 'https://a.example/',
            initiatorType: 'navigation',
            startTime: 0,
            duration: 10,
            responseStatus: 200,
            transferSize: 5,
            contentType: 'text/html',
          },
          {
            name: 'https://a.example/x',
            initiatorType: 'xmlhttprequest',
            startTime: 50,
            duration: 10,
            responseStatus: 0,
            transferSize: 0,
            contentType: '',
          },
          {
            name: 'https://a.example/late',
            initiatorType: 'fetch',
            startTime: 500,
            duration: 1,
            responseStatus: 200,
            transferSize: 1,
            contentType: '',
          },
        ],
      },
      1100,
      7,
    );
    expect(got.map((e) => [e.seq, e.id, e.type, e.status, e.method])).toEqual([
      [7, 't7', 'document', 200, undefined],
      [8, 't8', 'xhr', 0, undefined],
    ]);
  });
});

describe('browser_console', () => {
  it('returns what the page logged before the debugger attached, filtered and paged, and explains the bar', async () => {
    const { run, host } = setup({
      replay: [
        log('log', 'first'),
        log('error', 'second'),
        log('warning', 'third'),
        {
          method: 'Log.entryAdded',
          params: {
            entry: {
              level: 'error',
              text: 'Failed to load resource: 404',
              url: 'https://shop.example/missing',
              timestamp: 1,
            },
          },
        },
      ],
    });
    const all = await run('browser_console');
    const t = text(all);
    expect(t).toContain('Console of tab 1: 4 of 4 messages since the page loaded');
    expect(t).toMatch(/#1 \[log\] first — at https:\/\/shop\.example\/app\.js:5:3/);
    expect(t).toContain(
      '#4 [error browser] Failed to load resource: 404 — at https://shop.example/missing',
    );
    expect(t).toContain('Keel attached the debugger to this tab to read its console messages');
    expect(t).toMatch(
      /<untrusted_page_content_[0-9a-f]{12} source="https:\/\/shop\.example\/cart">/,
    );
    expect(infoOf(all)).toMatchObject({ total: 4, shown: 4, debuggerAttached: true });
    expect(host.debuggerCommands.map((c) => c.method)).toEqual([
      'Page.enable',
      'Runtime.enable',
      'Log.enable',
    ]);

    // Live messages after attach join the same log; a second call does not re-enable or re-attach.
    host.emitDebugger({ tabId: 1, ...log('error', 'fourth') });
    const errors = await run('browser_console', { levels: ['error'], limit: 1 });
    const e = text(errors);
    expect(e).toContain('3 matching of 5 messages');
    expect(e).toContain(
      'Showing 1: #2–#2. Truncated: 2 more matching messages; call again with after: 2.',
    );
    expect(e).not.toContain('attached the debugger');
    expect(infoOf(errors)).toMatchObject({ debuggerAttached: false, next: 2 });
    const next = text(await run('browser_console', { levels: ['error'], after: 2 }));
    expect(next).toContain('#4 [error browser]');
    expect(next).toContain('#5 [error] fourth');
    expect(next).not.toContain('#2 ');
    expect(text(await run('browser_console', { pattern: 'THIRD' }))).toContain(
      '#3 [warning] third',
    );
    expect(host.debuggerCommands.filter((c) => c.method === 'Runtime.enable')).toHaveLength(1);
  });

  it('clips long messages and starts again (with new numbers) after the debugger detached', async () => {
    const { run, host } = setup({ replay: [log('log', 'x'.repeat(5000))] });
    const t = text(await run('browser_console'));
    expect(t).toContain(`${'x'.repeat(1000)}… [4000 more chars]`);
    host.emitDetached(1);
    const again = text(await run('browser_console'));
    expect(again).toContain('#2 [log]');
    expect(again).toContain('Keel attached the debugger');
  });

  it('never returns a site secret or an Authorization value the page logs', async () => {
    const secrets: SecretSource = {
      list: async () => [{ origin: 'https://shop.example', name: 'password', kind: 'password' }],
      value: async () => 'hunter2-shop',
      now: () => T0,
    };
    const { run, net } = setup({
      replay: [log('log', 'typed hunter2-shop'), log('log', `sent ${TOKEN}`)],
      secrets,
    });
    await run('browser_network');
    net('Network.requestWillBeSent', {
      requestId: '9',
      request: {
        url: 'https://shop.example/api',
        method: 'GET',
        headers: { Authorization: TOKEN },
      },
      type: 'Fetch',
      wallTime: T0 / 1000,
      timestamp: 1,
    });
    const t = text(await run('browser_console'));
    expect(t).toContain('typed {{secret:shop.example/password}}');
    expect(t).toContain('sent [redacted]');
    expect(t).not.toContain('hunter2-shop');
    expect(t).not.toContain('s3cr3t');
  });
});

describe('filters see only the redacted text', () => {
  it('a pattern cannot probe a redacted value: credentials, URL userinfo and site secrets match as shown', async () => {
    const secrets: SecretSource = {
      list: async () => [{ origin: 'https://shop.example', name: 'password', kind: 'password' }],
      value: async () => 'hunter2-shop',
      now: () => T0,
    };
    const { run, net } = setup({
      replay: [log('log', 'typed hunter2-shop'), log('log', `sent ${TOKEN}`)],
      secrets,
    });
    await run('browser_network');
    net('Network.requestWillBeSent', {
      requestId: '9',
      request: {
        url: 'https://bob:pa55word@shop.example/api',
        method: 'GET',
        headers: { Authorization: TOKEN },
      },
      type: 'Fetch',
      wallTime: T0 / 1000,
      timestamp: 1,
    });
    for (const pattern of ['hunter2', 's3cr3t', 'Bearer s'])
      expect(text(await run('browser_console', { pattern }))).toContain('0 matching of 2');
    expect(text(await run('browser_console', { pattern: '[redacted]' }))).toContain('1 matching');
    expect(text(await run('browser_console', { pattern: '{{secret:' }))).toContain('1 matching');
    expect(text(await run('browser_network', { pattern: 'pa55word' }))).toContain('0 matching');
    expect(text(await run('browser_network', { pattern: 'bob' }))).toContain('0 matching');
    expect(text(await run('browser_network', { pattern: '[redacted]@' }))).toContain(
      '#4 GET pending fetch https://[redacted]@shop.example/api [id 9]',
    );
  });

  it('a binary body is described, not shown', async () => {
    const { run, net, bodies } = setup();
    await run('browser_network');
    net('Network.requestWillBeSent', {
      requestId: 'img',
      request: { url: 'https://shop.example/a.png', method: 'GET', headers: {} },
      type: 'Image',
      wallTime: T0 / 1000,
      timestamp: 1,
    });
    net('Network.responseReceived', {
      requestId: 'img',
      type: 'Image',
      response: { status: 200, statusText: 'OK', mimeType: 'image/png', headers: {} },
    });
    bodies.set('current', { body: btoa('\x89PNG....'), base64Encoded: true });
    const t = text(await run('browser_network', { bodyOf: 'img' }));
    expect(t).toContain('is binary (about 9 bytes): not shown.');
    expect(t).not.toContain('untrusted_page_content');
  });
});

describe('a page blocked by a dialog', () => {
  it('fails the read after 5 s instead of hanging, and the next call keeps what the late enable replayed', async () => {
    const { run, host } = setup();
    let release: () => void = () => undefined;
    host.debuggerReply = (_tabId, method) =>
      method === 'Runtime.enable'
        ? new Promise<object>((resolve) => {
            release = () => {
              host.emitDebugger({ tabId: 1, ...log('log', 'kept for the page') });
              resolve({});
            };
          })
        : {};
    const pending = run('browser_console');
    const failed = expect(pending).rejects.toThrow(
      /did not answer the debugger \(Runtime\.enable\) within 5 s: it may be blocked by a JavaScript dialog \(answer it with browser_dialog\)/,
    );
    await new Promise((r) => setTimeout(r, 0));
    await host.advance(5000);
    await failed;
    // The dialog was answered: the queued enable runs and replays; a retry finds the message.
    release();
    host.debuggerReply = () => ({});
    expect(text(await run('browser_console'))).toContain('[log] kept for the page');
  });
});

describe('both reads at once', () => {
  it('a console and a network read started together share one session and keep both logs', async () => {
    const { run, host } = setup({ replay: [log('log', 'early')] });
    const [c, n] = await Promise.all([run('browser_console'), run('browser_network')]);
    expect(text(c)).toContain('#1 [log] early');
    expect(text(n)).toContain('3 from before the debugger started recording');
    expect(host.debuggerCommands.map((x) => x.method).sort()).toEqual([
      'Log.enable',
      'Network.enable',
      'Page.enable',
      'Runtime.enable',
    ]);
    expect(text(await run('browser_console'))).toContain('#1 [log] early');
    expect(text(await run('browser_network'))).toContain('3 of 3');
  });
});

describe('browser_network', () => {
  it('lists requests from before (Resource Timing, no method) and after (CDP) recording began, filtered and paged', async () => {
    const { run, net, host } = setup();
    const first = await run('browser_network');
    const t = text(first);
    expect(t).toContain('Requests of tab 1: 3 of 3. 3 from before the debugger started recording');
    expect(t).toContain(
      '#1 (method unknown) 200 document https://shop.example/cart — 120 ms, 900 B, text/html (before the debugger attached: no method, headers or body)',
    );
    expect(t).toContain('#2 (method unknown) 404 fetch https://shop.example/api/missing');
    expect(t).toContain(
      '#3 (method unknown) status hidden or failed script https://cdn.other.example/x.js',
    );
    expect(t).not.toContain('/late');
    expect(t).toContain('Keel attached the debugger to this tab to read its network requests');
    expect(host.sent.filter((s) => s.request.op === 'resource_timing')).toHaveLength(1);

    net('Network.requestWillBeSent', {
      requestId: '7.1',
      request: {
        url: 'https://shop.example/old',
        method: 'POST',
        headers: { Authorization: TOKEN },
      },
      type: 'Fetch',
      wallTime: T0 / 1000 + 1,
      timestamp: 10,
    });
    net('Network.requestWillBeSent', {
      requestId: '7.1',
      request: { url: 'https://shop.example/new', method: 'GET', headers: {} },
      type: 'Fetch',
      wallTime: T0 / 1000 + 1,
      timestamp: 10.01,
      redirectResponse: { status: 302, statusText: 'Found' },
    });
    net('Network.requestWillBeSentExtraInfo', {
      requestId: '7.1',
      headers: { Authorization: TOKEN, Cookie: 'sid=abcdef123456' },
    });
    net('Network.responseReceived', {
      requestId: '7.1',
      type: 'Fetch',
      response: {
        status: 500,
        statusText: 'Server Error',
        mimeType: 'application/json',
        headers: { 'Set-Cookie': 'sid=zzzzzzzz9999; Path=/', 'Content-Type': 'application/json' },
      },
    });
    net('Network.loadingFinished', { requestId: '7.1', timestamp: 10.26, encodedDataLength: 2048 });
    net('Network.requestWillBeSent', {
      requestId: '8',
      request: { url: 'https://other.example/gone', method: 'GET', headers: {} },
      type: 'XHR',
      wallTime: T0 / 1000 + 2,
      timestamp: 11,
    });
    net('Network.loadingFailed', {
      requestId: '8',
      timestamp: 11.5,
      errorText: 'net::ERR_CONNECTION_REFUSED',
    });

    const errors = text(await run('browser_network', { status: 'errors', includeHeaders: true }));
    expect(errors).toContain('3 matching of 6');
    expect(errors).toContain(
      '#5 GET 500 Server Error fetch https://shop.example/new — 250 ms, 2.0 kB, application/json [id 7.1]',
    );
    expect(errors).toContain('    Authorization: [redacted]');
    expect(errors).toContain('    Cookie: [redacted]');
    expect(errors).toContain('    Set-Cookie: [redacted]');
    expect(errors).toContain(
      '#6 GET failed (net::ERR_CONNECTION_REFUSED) xhr https://other.example/gone — 500 ms [id 8]',
    );
    expect(errors).not.toMatch(/s3cr3t|abcdef123456|zzzzzzzz9999/);
    const redirect = text(await run('browser_network', { pattern: '/old' }));
    expect(redirect).toContain('#4 POST 302 Found fetch https://shop.example/old');
    expect(text(await run('browser_network', { types: ['xhr'] }))).toContain('1 matching of 6');
    const paged = text(await run('browser_network', { limit: 2, after: 1 }));
    expect(paged).toContain(
      'Showing 2: #2–#3. Truncated: 3 more requests; call again with after: 3.',
    );
  });

  it('returns a body on request: clipped, scrubbed, labelled when from another origin; none for timing entries', async () => {
    const { run, net, bodies } = setup();
    await run('browser_network');
    net('Network.requestWillBeSent', {
      requestId: 'a',
      request: {
        url: 'https://api.other.example/me',
        method: 'GET',
        headers: { Authorization: TOKEN },
      },
      type: 'Fetch',
      wallTime: T0 / 1000,
      timestamp: 1,
    });
    net('Network.responseReceived', {
      requestId: 'a',
      type: 'Fetch',
      response: { status: 200, statusText: 'OK', mimeType: 'application/json', headers: {} },
    });
    bodies.set('current', {
      body: btoa(`{"echo":"${TOKEN}","pad":"${'y'.repeat(500)}"}`),
      base64Encoded: true,
    });
    const body = text(await run('browser_network', { bodyOf: 'a', maxBodyChars: 200 }));
    expect(body).toContain(
      "This body is from another origin (https://api.other.example), not the tab's (https://shop.example).",
    );
    expect(body).toContain('Truncated to 200 of');
    expect(body).toContain('{"echo":"[redacted]"');
    expect(body).not.toContain('s3cr3t');
    expect(body).toMatch(
      /<untrusted_page_content_[0-9a-f]{12} source="https:\/\/api\.other\.example\/me">/,
    );
    await expect(run('browser_network', { bodyOf: 't1' })).rejects.toThrow(
      /before the debugger started recording/,
    );
    await expect(run('browser_network', { bodyOf: 'nope' })).rejects.toThrow(
      /No request with id nope/,
    );
  });
});
