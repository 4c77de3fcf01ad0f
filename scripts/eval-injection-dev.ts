// Development figures for the injection rules, never the blind slice: the composed hard
// look-alikes (seed 11), the composed training slice and the hand-written training slice, and
// with --verbose the signals of each hard look-alike still flagged. For rule work between blind
// scorings.
//
//   nice npx bun scripts/eval-injection-dev.ts [--verbose]
import { scoreInjectionRisk } from "../src/comprehension/injection/risk.ts";
import { composeInjection } from "./corpus/compose-injection.ts";
import { HARD_LOOKALIKES_EN, HARD_LOOKALIKES_INTL } from "./corpus/fragments-injection-hard.ts";
import { formatScore, injectionInput, injectionRecords, scoreInjection } from "./eval-modern.ts";

const verbose = process.argv.includes("--verbose");
const hard = composeInjection(300, 11, { en: HARD_LOOKALIKES_EN, intl: HARD_LOOKALIKES_INTL });
const h = (await scoreInjection(hard)).score;
console.log(`hard look-alikes (composed 300, seed 11): benign flagged ${((100 * h.fp) / h.neg).toFixed(1)}% (${h.fp}/${h.neg})`);
console.log(formatScore("modern hand-written training slice", (await scoreInjection(injectionRecords("train"))).score, "benign flagged"));
console.log(
  formatScore("composed training slice (1200, seed 7)", (await scoreInjection(composeInjection(1200, 7))).score, "benign flagged"),
);
if (verbose) {
  for (const r of hard) {
    const risk = scoreInjectionRisk(await injectionInput(r));
    if (!risk.risky) continue;
    console.log(`\n--- ${risk.score} ${r.language}\n${r.body.slice(0, 600)}`);
    for (const s of risk.signals) console.log(`  ${s.name} ${s.weight}  ${s.evidence}`);
  }
}
