/**
 * The corpus's only source of randomness: a seeded generator (mulberry32), so that an attack is
 * reproduced from its seed alone on any machine.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  int(maxExclusive: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (items) => items[int(items.length)], chance: (p) => next() < p };
}

/** The seed of the n-th attack of a soak: distinct, stable, and printable on its own. */
export function attackSeed(soakSeed: number, n: number): number {
  return (Math.imul(soakSeed >>> 0, 0x9e3779b1) + Math.imul(n + 1, 0x85ebca6b)) >>> 0;
}
