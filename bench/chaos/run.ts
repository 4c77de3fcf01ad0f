// `npm run chaos -- <name> [--messages N] [--rate R] [--fast]`: one fault scenario against the real
// service (bench/chaos/scenarios.ts), loopback only, bounded in count and time; prints one summary
// line and exits 1 when a message that got a 250 was lost or stored or pushed twice.
//   names: ingest-kill, worker-kill, db-restart, receiver-outage, copies, or all
// DATABASE_URL set: a fresh database on that server (db-restart then needs
// CHAOS_RESTART_SERVER_COMMAND); unset: an embedded PostgreSQL of the run's own.
import { type ChaosOptions, runChaos, summaryLine } from "./harness.ts";
import { scenarios } from "./scenarios.ts";

const usage = `usage: npm run chaos -- <${Object.keys(scenarios).join("|")}|all> [--messages N (≤ 1000)] [--rate R (msgs/s, ≤ 100)] [--fast]`;
const [name, ...args] = process.argv.slice(2);
const options: ChaosOptions = { messages: 300, rate: 25, fast: false, drainMs: 75_000 };
for (let i = 0; i < args.length; i++) {
  const flag = args[i];
  const value = Number(args[i + 1]);
  if (flag === "--fast") options.fast = true;
  else if (flag === "--messages" && Number.isInteger(value) && value >= 10 && value <= 1000) (options.messages = value), i++;
  else if (flag === "--rate" && Number.isInteger(value) && value >= 1 && value <= 100) (options.rate = value), i++;
  else {
    console.error(usage);
    process.exit(2);
  }
}
const names = name === "all" ? Object.keys(scenarios) : name && scenarios[name] ? [name] : null;
if (!names) {
  console.error(usage);
  process.exit(2);
}
let failed = false;
for (const scenario of names) {
  const summary = await runChaos(scenario, scenarios[scenario]!, options);
  console.log(summaryLine(summary));
  if (summary.lost > 0 || summary.duplicated > 0 || summary.failed.length > 0) failed = true;
}
process.exit(failed ? 1 : 0);
