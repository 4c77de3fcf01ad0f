// The service's log on stdout: one JSON line per event, the lines of one event-loop turn written
// together, and none lost however the process ends short of SIGKILL (exit, crash, SIGTERM).
import { describe, expect, test } from "bun:test";
import { makeLogger } from "../../src/log.ts";

const CHILD = `${import.meta.dir}/../support/log-child.ts`;

async function run(mode: string, env: Record<string, string> = {}) {
  const child = Bun.spawn([process.execPath, CHILD, mode], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  if (mode === "sigterm") {
    // Signal only once the child says it is ready: its lines are logged by then.
    const reader = child.stderr.getReader();
    const decoder = new TextDecoder();
    let stderr = "";
    let signalled = false;
    const stdout = new Response(child.stdout).text();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      stderr += decoder.decode(value);
      if (!signalled && stderr.includes("ready")) {
        signalled = true;
        child.kill("SIGTERM");
      }
    }
    return { stdout: await stdout, stderr, code: await child.exited };
  }
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

const events = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { time: string; level: string; event: string; n?: number });
const writes = (stderr: string) => Number(/writes=(\d+)/.exec(stderr)?.[1]);

describe("log", () => {
  test("a line is time, level, event, then the caller's fields, as JSON", () => {
    const lines: string[] = [];
    makeLogger("info", (line) => lines.push(line)).info("http.request", { request_id: "req_1", status: 200 });
    makeLogger("warn", (line) => lines.push(line)).info("dropped", {});
    expect(lines).toHaveLength(1);
    const parsed = JSON.parse(lines[0]!);
    expect(Object.keys(parsed)).toEqual(["time", "level", "event", "request_id", "status"]);
    expect(parsed).toMatchObject({ level: "info", event: "http.request", request_id: "req_1", status: 200 });
    expect(new Date(parsed.time).toISOString()).toBe(parsed.time);
  });

  test("the lines of one turn go out in one write, in order; a later turn's in another", async () => {
    const { stdout, stderr, code } = await run("turns");
    expect(code).toBe(0);
    expect(events(stdout).map((e) => e.n)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(writes(stderr)).toBe(2);
  });

  test("a burst is written in bounded batches", async () => {
    const { stdout, stderr } = await run("turns", { LINES: "600" });
    expect(events(stdout).map((e) => e.n)).toEqual(Array.from({ length: 601 }, (_, i) => i));
    expect(writes(stderr)).toBe(Math.ceil(600 / 256) + 1);
  });

  test("process.exit in the same turn still writes every line", async () => {
    const { stdout, code } = await run("exit");
    expect(code).toBe(3);
    expect(events(stdout).map((e) => e.n)).toEqual([0, 1, 2, 3, 4]);
  });

  test("an uncaught exception in the same turn still writes every line", async () => {
    const { stdout, stderr, code } = await run("throw");
    expect(code).not.toBe(0);
    expect(stderr).toContain("crash after logging");
    expect(events(stdout).map((e) => e.n)).toEqual([0, 1, 2, 3, 4]);
  });

  test("SIGTERM handled as src/main.ts does: the lines and the handler's own are written", async () => {
    const { stdout, code } = await run("sigterm");
    expect(code).toBe(0);
    expect(events(stdout).map((e) => e.event)).toEqual([...Array(5).fill("test.line"), "test.stopping"]);
  });
});
