import { describe, expect, it } from 'vitest';
import { pageTarget } from '../../../src/tools/browser/target';
import { FakeHost } from './fake-host';

/**
 * Which site an action inside a frame is judged on (issue: "an about:blank frame inside a
 * cross-origin frame is judged as the top page"). A frame without an address of its own has the
 * origin its creator gave it, and that is the site whose rule and approval apply.
 */
function tabWithFrame(url: string, origin: string) {
  const host = new FakeHost();
  host.addTab({ tabId: 1, url: 'https://shop.example/cart', title: 'Cart' });
  host.frames = [
    {
      frameId: 0,
      url: 'https://shop.example/cart',
      width: 800,
      height: 600,
      origin: 'https://shop.example',
      path: [],
    },
    {
      frameId: 3,
      url: 'https://mail.example/inbox',
      width: 300,
      height: 200,
      origin: 'https://mail.example',
      path: [0],
    },
    { frameId: 4, url, width: 100, height: 100, origin, path: [0, 0] },
  ];
  return host;
}

describe('the target of an action in a frame', () => {
  it('an about:blank frame created by another site is judged on that site, not the top page', async () => {
    const host = tabWithFrame('about:blank', 'https://mail.example');
    const t = await pageTarget(host, 1, 4);
    expect(t).toMatchObject({
      origin: 'https://mail.example',
      url: 'https://mail.example/',
      topOrigin: 'https://shop.example',
    });
    expect(t.forbidden).toBeUndefined();
  });

  it('a srcdoc frame of the top page is the top page', async () => {
    const host = tabWithFrame('about:srcdoc', 'https://shop.example');
    const t = await pageTarget(host, 1, 4);
    expect(t).toMatchObject({ origin: 'https://shop.example', url: 'https://shop.example/cart' });
    expect(t.topOrigin).toBeUndefined();
  });

  it('a sandboxed frame (opaque origin) is never acted on: no rule or approval can name it', async () => {
    const host = tabWithFrame('about:srcdoc', 'null');
    expect((await pageTarget(host, 1, 4)).forbidden).toMatch(/sandboxed/);
  });

  it('a frame with its own address is judged on it', async () => {
    const host = tabWithFrame('https://pay.example/card', 'https://pay.example');
    expect(await pageTarget(host, 1, 4)).toMatchObject({
      origin: 'https://pay.example',
      url: 'https://pay.example/card',
      topOrigin: 'https://shop.example',
    });
  });
});
