// Long run of the transaction-mixing stress (test/support/pg-transaction-stress.ts) against a
// database of its own on DATABASE_URL's server (or an embedded Postgres when unset).
//   npm run pgstress -- [--minutes 10] [--scenario pipeline|terminate|pool] [--driver <dir of a postgres package>]
// --driver points at another copy of postgres.js (e.g. an unpatched 3.4.9) to compare.
import { resolve } from "node:path";
import { createTestDatabase } from "../test/support/database.ts";
import {
  type PostgresFactory,
  prepareStressSchema,
  runStress,
  SCENARIOS,
  type Scenario,
  type StressReport,
  summary,
} from "../test/support/pg-transaction-stress.ts";

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const minutes = Number(arg("minutes") ?? 5);
const scenarios = (arg("scenario")?.split(",") ?? SCENARIOS) as Scenario[];
const driverDir = arg("driver");
const driver: PostgresFactory | undefined = driverDir
  ? ((await import(resolve(driverDir, "src/index.js"))).default as PostgresFactory)
  : undefined;

const db = await createTestDatabase();
// Interrupted long runs drop their database too.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void db.drop().finally(() => process.exit(130)));
const totals = new Map<Scenario, StressReport[]>();
const deadline = Date.now() + minutes * 60_000;
try {
  await prepareStressSchema(db.url, driver);
  let batch = 0;
  while (Date.now() < deadline) {
    for (const scenario of scenarios) {
      const report = await runStress({ url: db.url, scenario, rounds: scenario === "terminate" ? 10 : 40, driver });
      totals.set(scenario, [...(totals.get(scenario) ?? []), report]);
      if (report.violations.length) console.log(`batch ${batch} ${summary(report)}\n  ${report.violations.slice(0, 5).join("\n  ")}`);
    }
    batch++;
    if (batch % 10 === 0) console.log(`${batch} batches, ${Math.round((deadline - Date.now()) / 1000)} s left`);
  }
} finally {
  await db.drop();
}

console.log(`driver: ${driverDir ?? "installed (node_modules/postgres, patched)"}; ${minutes} min`);
let failed = false;
for (const [scenario, reports] of totals) {
  const sum = (pick: (r: StressReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
  const errors: Record<string, number> = {};
  for (const r of reports) for (const [k, v] of Object.entries(r.driverErrors)) errors[k] = (errors[k] ?? 0) + v;
  const violations = sum((r) => r.violations.length);
  // Kinds of violation: the messages with their ids and numbers taken out.
  const kinds: Record<string, number> = {};
  for (const r of reports) {
    for (const v of r.violations) {
      const kind = v
        .replace(/\b(pipeline|terminate|pool)_[a-z0-9]+_out\d+\b/g, "W")
        .replace(/\b(pipeline|terminate|pool)_[a-z0-9]+_\d+\b/g, "T")
        .replace(/\d+/g, "N")
        .replace(/\(xid N\)/, "");
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
  }
  const runsWithViolations = reports.filter((r) => r.violations.length).length;
  failed ||= violations > 0 || sum((r) => r.hung) > 0;
  console.log(
    `${scenario}: ${reports.length} runs, ${sum((r) => r.transactions)} transactions (${sum((r) => r.committed)} committed, ` +
      `${sum((r) => r.failed)} failed, ${sum((r) => r.inDoubt)} in doubt), ${sum((r) => r.terminatedBackends)} backends terminated, ` +
      `${sum((r) => r.outsideQueries)} unrelated queries; notices 25001=${sum((r) => r.nestedBegin)} 25P01=${sum((r) => r.strayCommit)}; ` +
      `driver errors ${JSON.stringify(errors)}; hung ${sum((r) => r.hung)}; violations ${violations} in ${runsWithViolations} runs`,
  );
  for (const [kind, n] of Object.entries(kinds).sort((a, b) => b[1] - a[1])) console.log(`  ${n} × ${kind}`);
}
process.exit(failed ? 1 : 0);
