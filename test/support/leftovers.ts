// What a finished test process left behind: processes still holding its temporary folder (an
// embedded PostgreSQL, a scanner daemon, a service process), and the folder itself. scripts/test.ts
// checks every file's folder after the file's process exits; test/project/leftovers.test.ts checks that a
// failed file and a Ctrl-C leave nothing.
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";

/** Live processes (zombies aside) whose command line, working folder or open files name `dir`. */
export function processesHolding(dir: string): string[] {
  const holders: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (/^\d+ \(.*\) Z /s.test(stat)) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      let holds = cmdline.includes(dir) || readlinkSync(`/proc/${pid}/cwd`).startsWith(dir);
      if (!holds) {
        for (const fd of readdirSync(`/proc/${pid}/fd`)) {
          try {
            if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(dir)) {
              holds = true;
              break;
            }
          } catch {}
        }
      }
      if (holds) holders.push(`pid ${pid}: ${cmdline.slice(0, 160)}`);
    } catch {}
  }
  return holders;
}

/** What a finished file left behind under its temporary folder; stops and removes it, too. */
export async function leftoversOf(dir: string): Promise<string[]> {
  if (process.platform !== "linux") {
    rmSync(dir, { recursive: true, force: true });
    return [];
  }
  // A daemon told to stop as the file ended may take a moment to be gone; a leftover stays.
  for (let waited = 0; waited < 5_000 && processesHolding(dir).length > 0; waited += 100) await Bun.sleep(100);
  const found = processesHolding(dir).map((holder) => `process still running: ${holder}`);
  for (const holder of found) {
    const pid = Number(/pid (\d+)/.exec(holder)![1]);
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  if (existsSync(dir)) {
    found.push(`temporary folder not removed: ${dir} (${readdirSync(dir).slice(0, 8).join(", ")})`);
    rmSync(dir, { recursive: true, force: true });
  }
  return found;
}
