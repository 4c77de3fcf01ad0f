// A throwaway Postfix for `bench smtp`: Debian's `postfix` package, a private config and queue
// directory under the system temp dir, smtpd on a loopback port, every message queued (with
// Postfix's fsync before its 250, as in production) and then handed to the discard transport.
// Nothing of the system's own Postfix is used or started: the package may be installed with no
// configuration at all.
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

export type LoopbackPostfix = {
  port: number /** the foreground master (or the script that runs it) */;
  pid: number;
  stop(): Promise<void>;
};

const POSTFIX = "/usr/sbin/postfix";
const SMTP_SOURCE = "/usr/sbin/smtp-source";

/** Whether Postfix and its smtp-source client are installed, and we may run a master (root only). */
export function postfixAvailable(): boolean {
  return existsSync(POSTFIX) && existsSync(SMTP_SOURCE) && existsSync("/etc/postfix/master.cf") && userInfo().uid === 0;
}

export function smtpSourceAvailable(): boolean {
  return existsSync(SMTP_SOURCE);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export async function startPostfix(): Promise<LoopbackPostfix> {
  const dir = mkdtempSync(join(tmpdir(), "bench-postfix-"));
  // mkdtemp makes it 0700: Postfix's daemons run as the postfix user and must enter it.
  chmodSync(dir, 0o755);
  const port = await freePort();
  for (const sub of ["queue", "data"]) Bun.spawnSync(["mkdir", "-p", join(dir, sub)]);
  const postfixIds = Bun.spawnSync(["id", "-u", "postfix"]).stdout.toString().trim();
  if (/^\d+$/.test(postfixIds)) chownSync(join(dir, "data"), Number(postfixIds), -1);
  writeFileSync(
    join(dir, "main.cf"),
    [
      "compatibility_level = 3.6",
      `queue_directory = ${dir}/queue`,
      `data_directory = ${dir}/data`,
      "mail_owner = postfix",
      "inet_interfaces = loopback-only",
      "inet_protocols = ipv4",
      "myhostname = bench-postfix.localhost",
      "mydestination =",
      "local_recipient_maps =",
      "alias_maps =",
      "alias_database =",
      "relay_domains = *",
      "mynetworks = 127.0.0.0/8",
      "default_transport = discard:bench",
      "relay_transport = discard:bench",
      "smtpd_relay_restrictions = permit_mynetworks, reject",
      "smtpd_recipient_restrictions = permit_mynetworks, reject",
      // Logged to the foreground master's stdout, which the bench does not keep.
      "maillog_file = /dev/stdout",
      "biff = no",
      "",
    ].join("\n"),
  );
  // Debian's services, unchrooted (the private queue has no chroot set-up), smtpd on our port only.
  const master = readFileSync("/etc/postfix/master.cf", "utf8")
    .split("\n")
    .map((line) =>
      /^smtp\s+inet\s/.test(line) ? `127.0.0.1:${port} inet n - n - - smtpd` : line.replace(/^(\S+\s+\S+\s+\S+\s+\S+\s+)y(\s)/, "$1n$2"),
    )
    .join("\n");
  writeFileSync(join(dir, "master.cf"), master);
  Bun.spawnSync([POSTFIX, "-c", dir, "post-install", "create-missing"], { stdout: "ignore", stderr: "ignore" });
  const child = Bun.spawn([POSTFIX, "-c", dir, "start-fg"], {
    stdout: process.env.BENCH_POSTFIX_DEBUG ? "inherit" : "ignore",
    stderr: "inherit",
  });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
      throw new Error("the loopback postfix did not start");
    }
    await Bun.sleep(100);
  }
  return {
    port,
    pid: child.pid,
    async stop() {
      Bun.spawnSync([POSTFIX, "-c", dir, "stop"], { stdout: "ignore", stderr: "ignore" });
      await Promise.race([child.exited, Bun.sleep(10_000)]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type SourceRun = { messages: number; seconds: number; perSecond: number; ok: boolean };

/**
 * Postfix's own load generator against any SMTP server: `sessions` parallel sessions, `messages`
 * in all of `bodyBytes` each; a new connection per message, or (`reuse`) one per session.
 */
export async function smtpSource(
  port: number,
  o: { messages: number; sessions: number; bodyBytes: number; reuse: boolean; to: string },
): Promise<SourceRun> {
  const args = [SMTP_SOURCE, ...(o.reuse ? ["-d"] : []), "-l", String(o.bodyBytes), "-m", String(o.messages), "-s", String(o.sessions)];
  args.push("-M", "bench.client", "-f", "sender@bench.example", "-t", o.to, `127.0.0.1:${port}`);
  const started = performance.now();
  const child = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const code = await child.exited;
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) console.error(`smtp-source exited ${code}: ${(await new Response(child.stderr).text()).trim()}`);
  return { messages: o.messages, seconds, perSecond: o.messages / seconds, ok: code === 0 };
}
