// The service as `npm start` runs it (`bun src/main.ts`), in child processes with the roles and
// settings a scenario gives, each one's JSON log kept in a file of the run's directory.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { atRunEnd } from "../../test/support/run-end.ts";

const root = resolve(import.meta.dir, "../..");

export type ServiceProcess = {
  name: string;
  pid: number;
  kill(signal: "SIGKILL" | "SIGTERM"): Promise<void>;
  logPath: string;
};

let starts = 0;

/**
 * `cpu`: the one core the process may run on (`taskset -c`, which execs the service in its own
 * place, so the pid is the service's).
 */
export async function startService(
  name: string,
  env: Record<string, string>,
  runDir: string,
  options: { cpu?: number } = {},
): Promise<ServiceProcess> {
  const logPath = join(runDir, `${name}.${++starts}.log`);
  const pin = options.cpu === undefined ? [] : ["taskset", "-c", String(options.cpu)];
  const child = Bun.spawn([...pin, process.execPath, "src/main.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdout: Bun.file(logPath),
    stderr: Bun.file(`${logPath}.err`),
  });
  // A scenario or test that fails or times out before killing it must not leave it running.
  const forget = atRunEnd({ sync: () => void child.kill("SIGKILL") });
  void child.exited.then(forget);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (existsSync(logPath) && readFileSync(logPath, "utf8").includes('"service.started"')) break;
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} during start; see ${logPath}.err`);
    if (Date.now() > deadline) throw new Error(`${name} did not start within 60 s; see ${logPath}`);
    await Bun.sleep(50);
  }
  const self: ServiceProcess = {
    name,
    pid: child.pid,
    logPath,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await child.exited;
    },
  };
  return self;
}
