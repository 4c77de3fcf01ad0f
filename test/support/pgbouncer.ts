// A real PgBouncer (Debian's `pgbouncer` binary) in transaction pooling mode on a random loopback
// port, in front of the test's PostgreSQL server. Its config, pid and log live in a temp dir of
// its own; the system's pgbouncer service is never touched.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atRunEnd } from "./run-end.ts";
import { freePort } from "./smtp-client.ts";
import { toolBinary } from "./system-tools.ts";

export type Bouncer = { port: number; urlFor(directUrl: string): string; log(): string; stop(): Promise<void> };

export async function startPgBouncer(serverUrl: string): Promise<Bouncer> {
  const server = new URL(serverUrl);
  const dir = mkdtempSync(join(tmpdir(), "mailbox-pgbouncer-"));
  // pgbouncer refuses to run as root; it drops to the postgres user (-u), who must reach its files.
  chmodSync(dir, 0o777);
  const port = await freePort();
  const user = decodeURIComponent(server.username || "postgres");
  // The password is what PgBouncer logs in to the server with (the embedded server asks for one).
  const password = decodeURIComponent(server.password);
  writeFileSync(join(dir, "userlist.txt"), `"${user}" "${password}"\n`);
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || "5432"}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 500",
      "default_pool_size = 10",
      `pidfile = ${join(dir, "pgbouncer.pid")}`,
      `logfile = ${join(dir, "pgbouncer.log")}`,
      "ignore_startup_parameters = extra_float_digits,options",
      "",
    ].join("\n"),
  );
  for (const name of ["userlist.txt", "pgbouncer.ini"]) chmodSync(join(dir, name), 0o644);
  const asRoot = process.getuid?.() === 0;
  const binary = toolBinary("pgbouncer");
  if (!binary) throw new Error("pgbouncer is not installed (Debian: pgbouncer)");
  const child = Bun.spawn([binary, ...(asRoot ? ["-u", "postgres"] : []), join(dir, "pgbouncer.ini")], {
    stdout: "ignore",
    stderr: "pipe",
  });
  const forget = atRunEnd({
    sync: () => {
      child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
    graceful: () => stop(),
  });
  const stop = async () => {
    forget();
    child.kill("SIGTERM");
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const log = () => (existsSync(join(dir, "pgbouncer.log")) ? readFileSync(join(dir, "pgbouncer.log"), "utf8") : "");
  const deadline = Date.now() + 10_000;
  while (!/listening on 127\.0\.0\.1:\d+/.test(log())) {
    if (child.exitCode !== null)
      throw new Error(`pgbouncer exited with ${child.exitCode}: ${await new Response(child.stderr).text()} ${log()}`);
    if (Date.now() > deadline) throw new Error(`pgbouncer did not start: ${log()}`);
    await Bun.sleep(50);
  }
  return {
    port,
    urlFor(directUrl) {
      const url = new URL(directUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    log,
    stop,
  };
}
