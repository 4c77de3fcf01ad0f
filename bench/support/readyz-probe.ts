// Asks a URL again and again from a process of its own, so that the benchmark's own work (building
// and sending large messages) never delays a probe: `bun bench/support/readyz-probe.ts URL
// INTERVAL_MS`. One line per answer on stdout, `<start epoch ms> <latency ms> <status>` (status 0:
// no answer within 10 s); a probe starts INTERVAL_MS after the previous one started, or at once
// when that one took longer. Runs until SIGTERM.
import process from "node:process";

const [url, intervalArg] = process.argv.slice(2);
const interval = Number(intervalArg ?? 10);
if (!url || !(interval > 0)) {
  console.error("usage: bun bench/support/readyz-probe.ts URL INTERVAL_MS");
  process.exit(2);
}
let running = true;
process.on("SIGTERM", () => {
  running = false;
});
const lines: string[] = [];
const flush = () => {
  if (lines.length > 0) process.stdout.write(`${lines.splice(0).join("\n")}\n`);
};
while (running) {
  const startedAt = Date.now();
  const started = performance.now();
  const status = await fetch(url, { signal: AbortSignal.timeout(10_000) }).then(
    async (response) => {
      await response.arrayBuffer();
      return response.status;
    },
    () => 0,
  );
  const ms = performance.now() - started;
  lines.push(`${startedAt} ${ms.toFixed(2)} ${status}`);
  if (lines.length >= 50) flush();
  const wait = interval - ms;
  if (wait > 0) await Bun.sleep(wait);
}
flush();
process.exit(0);
