// The service as a child process, as an operator starts it: collects stdout and stderr into one
// transcript and waits for its `service.started` line. Used by test/project/lifecycle.test.ts,
// test/events/events.drain.test.ts and test/project/deno.smoke.test.ts.
import { type ChildProcessByStdio, type SpawnOptions, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import type { TestContext } from "./context.ts";
import { atRunEnd } from "./run-end.ts";

export type ServiceChild = {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything the process wrote so far, stdout and stderr interleaved. */
  readonly output: string;
  /** The exit code, once the process has exited. */
  exited: Promise<number | null>;
};

export function spawnService(command: string, args: string[], options: Omit<SpawnOptions, "stdio">): ServiceChild {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => void (output += chunk));
  child.stderr.on("data", (chunk) => void (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // A test that fails or times out before stopping it must not leave it running (with its group).
  const forget = atRunEnd({
    sync: () => {
      try {
        if (options.detached && child.pid) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {}
    },
  });
  void exited.then(forget);
  return {
    child,
    get output() {
      return output;
    },
    exited,
  };
}

/** Polls the transcript for `"service.started"`; throws with the transcript if it exits or takes longer than timeoutMs. */
export async function waitForStarted(service: ServiceChild, timeoutMs: number, failure = "the service did not start"): Promise<void> {
  for (let waited = 0; !service.output.includes('"service.started"'); waited += 100) {
    if (waited > timeoutMs || service.child.exitCode !== null) throw new Error(`${failure}:\n${service.output}`);
    await Bun.sleep(100);
  }
}

/**
 * The environment of a service process (Bun.spawn of src/main.ts) beside a test context: only PATH
 * and HOME from ours, the context's database and data directory, silent logs, inbound auth off.
 */
export function contextServiceEnv(ctx: TestContext, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    DATABASE_URL: ctx.config.databaseUrl!,
    LOG_LEVEL: "silent",
    INBOUND_AUTH_MODE: "off",
    DATA_DIR: ctx.config.dataDir,
    ...extra,
  };
}
