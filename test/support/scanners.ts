// Real ClamAV and SpamAssassin daemons for tests, each on its own loopback port with a scratch
// directory. clamd loads only a signature database written here (the EICAR test file), so it
// starts in well under a second and needs no freshclam; spamd runs local tests only (-L: no DNS
// or network rules), so its verdicts do not depend on the outside world.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { atRunEnd } from "./run-end.ts";
import { freePort } from "./smtp-client.ts";

export type ScannerName = "clamd" | "spamd";
/** pid: the daemon's process (spamd forks its children under it), for a benchmark's CPU accounting. */
export type Scanner = { address: string; pid: number; close(): Promise<void> };

/** The EICAR test file: every antivirus treats it as malware, and it is harmless. */
export const EICAR = "X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*";
// clamd's .hdb format: md5 of the whole file, its size, the name reported as FOUND.
const EICAR_HDB = "44d88612fea8a8f36de82e1278abb02f:68:Test.EICAR\n";
/** SpamAssassin's test string: any SpamAssassin scores a message holding it 1000. */
export const GTUBE = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X";

const CLAMD_START_MS = 30_000;
// spamd compiles its whole rule set before it listens: ~8 s here, more on a busy CI machine.
const SPAMD_START_MS = 90_000;

// Debian puts both daemons in /usr/sbin, which a non-root PATH often lacks.
const SEARCH_PATH = [process.env.PATH ?? "", "/usr/sbin", "/usr/local/sbin"].filter(Boolean).join(":");

export function scannerBinary(name: ScannerName): string | null {
  return Bun.which(name, { PATH: SEARCH_PATH });
}

export function scannerAvailable(name: ScannerName): boolean {
  return scannerBinary(name) !== null;
}

type Daemon = { process: ReturnType<typeof Bun.spawn>; dir: string; log: string; forget?: () => void };

// Every daemon still running when the test process ends is stopped: a leaked clamd or spamd
// would hold its port and memory long after the run.
const running = new Set<Daemon>();

function track(daemon: Daemon): void {
  running.add(daemon);
  daemon.forget = atRunEnd({
    sync: () => {
      daemon.process.kill("SIGTERM");
      rmSync(daemon.dir, { recursive: true, force: true });
    },
    graceful: () => stop(daemon),
  });
}

async function stop(daemon: Daemon): Promise<void> {
  if (!running.delete(daemon)) return;
  daemon.forget?.();
  daemon.process.kill("SIGTERM");
  // spamd stops its children on SIGTERM; give both a moment, then insist.
  const exited = await Promise.race([daemon.process.exited.then(() => true), Bun.sleep(5_000).then(() => false)]);
  if (!exited) {
    daemon.process.kill("SIGKILL");
    await daemon.process.exited;
  }
  rmSync(daemon.dir, { recursive: true, force: true });
}

function logTail(path: string): string {
  try {
    return readFileSync(path, "utf8").split("\n").slice(-20).join("\n");
  } catch {
    return "(no log)";
  }
}

/** One request, the whole reply (both daemons close the connection after answering a PING). */
function ask(port: number, request: string, timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let reply = "";
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on("connect", () => socket.write(request));
    socket.on("data", (chunk: Buffer) => (reply += chunk.toString("latin1")));
    socket.on("end", done);
    socket.on("error", done);
  });
}

async function waitUntilReady(daemon: Daemon, port: number, ping: string, pong: RegExp, limitMs: number, name: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (daemon.process.exitCode !== null || daemon.process.signalCode !== null) {
      running.delete(daemon);
      throw new Error(`${name} exited (${daemon.process.exitCode ?? daemon.process.signalCode}) before answering:\n${logTail(daemon.log)}`);
    }
    if (pong.test(await ask(port, ping))) return;
    if (Date.now() > deadline) {
      await stop(daemon);
      throw new Error(`${name} did not answer PING within ${limitMs} ms:\n${logTail(daemon.log)}`);
    }
    await Bun.sleep(100);
  }
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

export async function startClamd(): Promise<Scanner> {
  const binary = scannerBinary("clamd");
  if (!binary) throw new Error("clamd is not installed");
  const dir = mkdtempSync(join(tmpdir(), "test-clamd-"));
  writeFileSync(join(dir, "eicar.hdb"), EICAR_HDB);
  const port = await freePort();
  const log = join(dir, "clamd.log");
  const config = join(dir, "clamd.conf");
  writeFileSync(
    config,
    [
      `DatabaseDirectory ${dir}`,
      `TCPSocket ${port}`,
      "TCPAddr 127.0.0.1",
      "Foreground yes",
      `LogFile ${log}`,
      // As root clamd would otherwise switch to the clamav user, who cannot read this directory.
      ...(isRoot() ? ["User root"] : []),
    ].join("\n") + "\n",
  );
  const daemon: Daemon = { process: Bun.spawn([binary, "-c", config], { stdout: "ignore", stderr: "ignore" }), dir, log };
  track(daemon);
  await waitUntilReady(daemon, port, "zPING\0", /^PONG\0?$/, CLAMD_START_MS, "clamd");
  return { address: `127.0.0.1:${port}`, pid: daemon.process.pid, close: () => stop(daemon) };
}

/** children: spamd's -m, the most messages it checks at once (2 unless a benchmark asks for more). */
export async function startSpamd(options: { children?: number } = {}): Promise<Scanner> {
  const binary = scannerBinary("spamd");
  if (!binary) throw new Error("spamd is not installed");
  const dir = mkdtempSync(join(tmpdir(), "test-spamd-"));
  const port = await freePort();
  const log = join(dir, "spamd.log");
  const args = [
    binary,
    "-L", // local tests only: no DNS blocklists, no network checks
    "-i",
    "127.0.0.1",
    "-p",
    String(port),
    "--nouser-config",
    "-s",
    "stderr",
    "-m",
    String(options.children ?? 2),
    // All of them forked at start, and kept: a benchmark's load step must not wait for a fork.
    "--min-children",
    String(options.children ?? 2),
    "--max-spare",
    String(options.children ?? 2),
    // As root spamd drops to another user anyway; name it rather than rely on its fallback.
    ...(isRoot() ? ["-u", "nobody"] : []),
  ];
  const daemon: Daemon = { process: Bun.spawn(args, { stdout: "ignore", stderr: Bun.file(log) }), dir, log };
  track(daemon);
  await waitUntilReady(daemon, port, "PING SPAMC/1.5\r\n\r\n", /^SPAMD\/[\d.]+ 0 PONG/, SPAMD_START_MS, "spamd");
  return { address: `127.0.0.1:${port}`, pid: daemon.process.pid, close: () => stop(daemon) };
}
