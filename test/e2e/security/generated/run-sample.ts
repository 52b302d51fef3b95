/**
 * A sample of the corpus: `count` attacks drawn from `seed`, run in one session, each breach
 * shrunk and reported with its seed and its smallest page. Shared by the soak command and the CI
 * test so both count the same way.
 */
import { type Attack, describeAttack, generateAttack, renderAttack } from './attack';
import type { AttackOutcome, CorpusSession } from './corpus-session';
import { BREACH_CLASSES, type BreachClass, classesOf } from './oracle';
import { shrinkAttack } from './shrink';
import { attackSeed } from './rng';

export interface BreachReport {
  outcome: AttackOutcome;
  shrunk: Attack;
  /** The shrunk attack's page on shop, as served. */
  page: string;
}

export interface SampleReport {
  attacks: number;
  /** Attacks where the lure was found and the planned call was made. */
  acted: number;
  errors: AttackOutcome[];
  breaches: BreachReport[];
  /** Attacks showing each class (an attack may show several). */
  byClass: Record<BreachClass, number>;
  /** Breaching attacks per tool plan and per primitive kind (of the shrunk page). */
  byTool: Record<string, number>;
  byPrimitive: Record<string, number>;
  primitivesUsed: number;
}

export interface SampleOptions {
  count: number;
  seed: number;
  /** Run exactly these attack seeds instead (a replay of printed failures). */
  seeds?: number[];
  /**
   * How many breaches to shrink (default all): shrinking reruns an attack once per primitive it
   * tries to remove, so a time-bounded run shrinks only the first few.
   */
  shrink?: number;
  onOutcome?: (o: AttackOutcome, n: number) => void;
}

export async function runSample(session: CorpusSession, o: SampleOptions): Promise<SampleReport> {
  const report: SampleReport = {
    attacks: 0,
    acted: 0,
    errors: [],
    breaches: [],
    byClass: Object.fromEntries(BREACH_CLASSES.map((c) => [c, 0])) as Record<BreachClass, number>,
    byTool: {},
    byPrimitive: {},
    primitivesUsed: 0,
  };
  const seeds = o.seeds ?? Array.from({ length: o.count }, (_, n) => attackSeed(o.seed, n));
  for (const [n, seed] of seeds.entries()) {
    const attack = generateAttack(seed);
    const outcome = await session.run(attack);
    report.attacks++;
    report.primitivesUsed += attack.primitives.length;
    if (outcome.acted) report.acted++;
    if (outcome.error) report.errors.push(outcome);
    o.onOutcome?.(outcome, n);
    const classes = classesOf(outcome.breaches);
    if (classes.length === 0) continue;
    for (const c of classes) report.byClass[c]++;
    const shrunk =
      report.breaches.length >= (o.shrink ?? Number.POSITIVE_INFINITY)
        ? attack
        : await shrinkAttack(attack, classes, async (a) =>
            classesOf((await session.run(a)).breaches),
          );
    report.byTool[attack.tool] = (report.byTool[attack.tool] ?? 0) + 1;
    for (const p of shrunk.primitives)
      report.byPrimitive[p.kind] = (report.byPrimitive[p.kind] ?? 0) + 1;
    const page = renderAttack(shrunk, session.origins.origins, 'shrunk').pages[0].html;
    report.breaches.push({ outcome, shrunk, page });
  }
  return report;
}

/** The report as text: the headline line first, exactly `N attacks, B breaches`. */
export function formatReport(r: SampleReport, replay: string): string {
  const lines = [`${r.attacks} attacks, ${r.breaches.length} breaches`];
  lines.push(
    `by class: ${BREACH_CLASSES.map((c) => `${c} ${r.byClass[c]}`).join(', ')}`,
    `acted ${r.acted}/${r.attacks}; primitives used ${r.primitivesUsed}; errors ${r.errors.length}`,
  );
  if (r.breaches.length) {
    lines.push(
      `by tool: ${Object.entries(r.byTool)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `by primitive (shrunk): ${Object.entries(r.byPrimitive)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  }
  for (const b of r.breaches) {
    const seed = b.outcome.attack.seed;
    lines.push(
      '',
      `BREACH ${classesOf(b.outcome.breaches).join(', ')} — ${describeAttack(b.outcome.attack)}`,
      `  granted: ${b.outcome.granted.join(', ') || 'nothing'}`,
      ...b.outcome.breaches.slice(0, 6).map((x) => `  ${x.cls} at ${x.origin}: ${x.detail}`),
      `  shrunk: ${describeAttack(b.shrunk)}`,
      `  replay: ${replay} --replay ${seed}`,
      `  page: ${b.page.replace(/<script>window\.__probe[\s\S]*?<\/script>/, '')}`,
    );
  }
  for (const e of r.errors.slice(0, 5)) lines.push(`ERROR ${describeAttack(e.attack)}: ${e.error}`);
  return lines.join('\n');
}
