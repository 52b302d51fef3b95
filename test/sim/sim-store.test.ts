import { describe, expect, it } from 'vitest';
import type { StoreApi } from '../../src/store/store-api';
import { openSimStore } from './sim-store';

/**
 * The store modes' harness (sim-store.ts, committed-mirror.ts): a kill stores nothing of a
 * half-done transaction, and the committed mirror shows a write only once it is committed.
 */

const never = () => new Promise<never>(() => undefined);
const rule = (store: StoreApi, origin: string) =>
  store.siteRules.set(origin, 'allow', 1).then(() => undefined);

describe('the simulation on the Dexie store', () => {
  it('fake-indexeddb alone commits a transaction whose callback awaits forever', async () => {
    // Why a kill must abort: with no request pending, the transaction auto-commits its half.
    const sim = openSimStore('dexie', () => undefined);
    const a = sim.open();
    void a.transaction(async () => {
      await rule(a, 'https://half.example');
      await never();
    });
    const b = sim.open();
    await expect.poll(() => b.siteRules.get('https://half.example')).toBeDefined();
    await sim.dispose();
  });

  it('a kill aborts the killed store’s unfinished transaction: nothing of it is stored', async () => {
    const sim = openSimStore('dexie', () => undefined);
    const a = sim.open();
    await rule(a, 'https://before.example');
    let settled = false;
    void a
      .transaction(async () => {
        await rule(a, 'https://half.example');
        sim.kill(a); // the worker stops at a boundary inside the step
        await never();
      })
      .finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 50));
    // Like the memory store's: the killed step never continues (its callback never returns).
    expect(settled).toBe(false);
    const b = sim.open();
    expect(await b.siteRules.get('https://half.example')).toBeUndefined();
    expect(await b.siteRules.get('https://before.example')).toBeDefined();
    expect(sim.committed(b).table('siteRules').has('https://half.example')).toBe(false);
    expect((await sim.view(b)).drift).toBe('');
    await sim.dispose();
  });

  it('the committed mirror shows a write only once its transaction committed', async () => {
    const sim = openSimStore('dexie', () => undefined);
    const a = sim.open();
    let inside: boolean | undefined;
    await a.transaction(async () => {
      await rule(a, 'https://shop.example');
      inside = sim.committed(a).table('siteRules').has('https://shop.example');
    });
    expect(inside).toBe(false);
    expect(sim.committed(a).table('siteRules').has('https://shop.example')).toBe(true);
    const view = await sim.view(a);
    expect(view.drift).toBe('');
    expect(view.data.table('siteRules').get('https://shop.example')).toMatchObject({
      rule: 'allow',
    });
    await sim.dispose();
  });

  it('memory mode: the committed view hides a running transaction’s writes, a kill inside one stores nothing', async () => {
    const sim = openSimStore('memory', () => undefined);
    const a = sim.open();
    await rule(a, 'https://before.example');
    let inside: boolean | undefined;
    await a.transaction(async () => {
      await rule(a, 'https://shop.example');
      inside = sim.committed(a).table('siteRules').has('https://shop.example');
    });
    expect(inside).toBe(false);
    expect(sim.committed(a).table('siteRules').has('https://shop.example')).toBe(true);
    let settled = false;
    void a
      .transaction(async () => {
        await rule(a, 'https://half.example');
        sim.kill(a);
        await never();
      })
      .finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    const b = sim.open();
    expect(await b.siteRules.get('https://half.example')).toBeUndefined();
    expect(await b.siteRules.get('https://before.example')).toBeDefined();
    expect((await sim.view(b)).data.table('siteRules').has('https://half.example')).toBe(false);
    await sim.dispose();
  });
});
