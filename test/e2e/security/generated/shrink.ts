/**
 * Shrinking a breach: remove one primitive at a time and keep each removal after which the attack
 * still breaches in one of the same classes, until no single removal does. What remains is the
 * smallest page that still shows the breach (the tool, mode and rules are kept as they were).
 */
import type { Attack } from './attack';
import { type BreachClass, classesOf } from './oracle';

export async function shrinkAttack(
  attack: Attack,
  classes: readonly BreachClass[],
  breaches: (a: Attack) => Promise<BreachClass[]>,
): Promise<Attack> {
  let current = attack;
  let progress = true;
  while (progress && current.primitives.length > 0) {
    progress = false;
    for (let i = 0; i < current.primitives.length; i++) {
      const smaller = { ...current, primitives: current.primitives.filter((_, j) => j !== i) };
      const found = await breaches(smaller);
      if (found.some((c) => classes.includes(c))) {
        current = smaller;
        progress = true;
        break;
      }
    }
  }
  return current;
}

export { classesOf };
