// A private Rspamd for tests, benchmarks and scripts/eval-spam.ts: Debian's rules and modules
// (/etc/rspamd), our own top-level rspamd.conf and local.d overrides in a scratch directory, a
// normal worker (scanning, POST /checkv2) and a controller (learning) on free loopback ports, run
// in the foreground and stopped by close() or when this process exits.
//
// The test network has no DNS to the internet, so every module that looks something up (RBLs,
// SURBL, SPF, DKIM, DMARC, ARC, ASN, fuzzy hashes, reverse DNS, HELO/host checks) is turned off:
// each lookup would otherwise wait out its timeout (8 s a message here) and add "DNS failed"
// points, the same reason spamd runs with -L. Bayes keeps its statistics in the machine's Redis
// under a key prefix private to this run, deleted on close, so parallel runs never mix.
//
// Startup is dominated by compiling Rspamd's hyperscan databases (the TLD list alone takes ~70 s
// on a loaded 2-core machine); they go to a cache directory shared by every run, so only the first
// start on a machine pays for it (then ~10 s, most of it loading the language detector).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { atRunEnd } from "./run-end.ts";
import { freePort } from "./smtp-client.ts";

export type RspamdOptions = {
  /** normal worker processes (each runs one event loop); 1 unless a benchmark wants more */
  workers?: number;
  /** Redis for Bayes, host:port; RSPAMD_TEST_REDIS or 127.0.0.1:6379 */
  redis?: string;
  /** more local.d files by name, e.g. { "headers_group.conf": "symbols { ... }" } */
  localFiles?: Record<string, string>;
};

export type Rspamd = {
  /** the normal worker's base URL: what RSPAMD_URL is set to */
  url: string;
  /** the controller's base URL (learning, stat) */
  controllerUrl: string;
  /** the Bayes key prefix in Redis, private to this run */
  redisPrefix: string;
  /** the main process (its workers are its children), for a benchmark's CPU accounting */
  pid: number;
  /** Teach Bayes one message; false when Rspamd declined it (already learned, too few tokens). */
  learn(kind: "spam" | "ham", raw: Uint8Array): Promise<boolean>;
  close(): Promise<void>;
};

// Debian puts rspamd in /usr/bin, but look where spamd and clamd live too.
const SEARCH_PATH = [process.env.PATH ?? "", "/usr/sbin", "/usr/local/sbin"].filter(Boolean).join(":");
const DEBIAN_CONFDIR = "/etc/rspamd";
// A cold start compiles hyperscan databases for a minute or more; CI machines are slower still.
const START_MS = 240_000;
const HS_CACHE_DIR = join(process.env.MAILBOX_TEST_SHARED_TMPDIR ?? tmpdir(), "rspamd-hs-cache");

// Modules that make network lookups, each turned off with `enabled = false` in local.d.
const NETWORK_MODULES = [
  "rbl", // every DNS blocklist, including SURBL and the email lists Rspamd converts into rbl rules
  "asn",
  "spf",
  "dkim",
  "dmarc",
  "arc",
  "fuzzy_check", // UDP to Rspamd's public fuzzy servers
  "reputation",
  "phishing",
  "once_received", // a PTR lookup when the client's hostname is not passed
  "multimap", // its default rules are remote maps (freemail, disposable domains)
  "url_redirector",
  "whitelist", // rests on the SPF, DKIM and DMARC results above
  "mx_check",
];
// hfilter's HELO, hostname and From checks resolve names; its URL and Message-ID checks do not.
const HFILTER = "helo_enabled = false;\nhostname_enabled = false;\nfrom_enabled = false;\n";

export function rspamdBinary(): string | null {
  return Bun.which("rspamd", { PATH: SEARCH_PATH });
}

export function rspamdAvailable(): boolean {
  return rspamdBinary() !== null;
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function logTail(path: string): string {
  try {
    return readFileSync(path, "utf8").split("\n").slice(-30).join("\n");
  } catch {
    return "(no log)";
  }
}

function topLevelConfig(dir: string, normalPort: number, controllerPort: number, workers: number): string {
  return `# Written by test/support/rspamd.ts for one run; Debian's rules, our workers and overrides.
.include "$CONFDIR/common.conf"
options {
  pidfile = "${dir}/rspamd.pid";
  .include "$CONFDIR/options.inc"
  .include(try=true; priority=1,duplicate=merge) "$LOCAL_CONFDIR/local.d/options.inc"
}
logging {
  type = "file";
  filename = "${dir}/rspamd.log";
  level = "warning";
}
worker "normal" {
  bind_socket = "127.0.0.1:${normalPort}";
  count = ${workers};
  mime = true;
}
worker "controller" {
  bind_socket = "127.0.0.1:${controllerPort}";
  count = 1;
  # Loopback may learn without a password; nothing else can reach this port.
  secure_ip = "127.0.0.1";
}
`;
}

function writeConfig(
  dir: string,
  ports: { normal: number; controller: number },
  workers: number,
  redis: string,
  prefix: string,
  localFiles: Record<string, string>,
): string {
  const local = join(dir, "local.d");
  mkdirSync(local);
  mkdirSync(join(dir, "db"));
  mkdirSync(HS_CACHE_DIR, { recursive: true });
  for (const name of NETWORK_MODULES) writeFileSync(join(local, `${name}.conf`), "enabled = false;\n");
  writeFileSync(join(local, "hfilter.conf"), HFILTER);
  writeFileSync(join(local, "options.inc"), `hs_cache_dir = "${HS_CACHE_DIR}";\n`);
  // Redis only for Bayes: with no global redis section the Redis-backed modules (greylisting,
  // rate limits, history, replies, neural) stay off, as they would change verdicts between runs.
  writeFileSync(
    join(local, "classifier-bayes.conf"),
    `backend = "redis";\nservers = "${redis}";\nprefix = "${prefix}%s%l";\ncache_key = "${prefix}learned_ids";\n`,
  );
  for (const [name, text] of Object.entries(localFiles)) writeFileSync(join(local, basename(name)), text);
  const config = join(dir, "rspamd.conf");
  writeFileSync(config, topLevelConfig(dir, ports.normal, ports.controller, workers));
  return config;
}

async function answersPing(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1_000) });
    return response.ok && (await response.text()).trim() === "pong";
  } catch {
    return false;
  }
}

// Bayes keys this run wrote: its token hashes and learn counters, and its entries in the
// per-symbol key sets Rspamd keeps for statistics.
async function dropRedisKeys(redis: string, prefix: string): Promise<void> {
  const client = new Bun.RedisClient(`redis://${redis}`);
  try {
    let cursor = "0";
    do {
      const [next, keys] = (await client.send("SCAN", [cursor, "MATCH", `${prefix}*`, "COUNT", "5000"])) as [string, string[]];
      cursor = next;
      if (keys.length > 0) await client.send("UNLINK", keys);
    } while (cursor !== "0");
    // (the learn cache, `${prefix}learned_ids`, goes with the SCAN above)
    for (const symbol of ["BAYES_SPAM", "BAYES_HAM"]) await client.send("SREM", [`${symbol}_keys`, `${prefix}RS`]);
  } catch (error) {
    console.warn(`rspamd helper: could not delete Redis keys ${prefix}*: ${(error as Error).message}`);
  } finally {
    client.close();
  }
}

export async function startRspamd(options: RspamdOptions = {}): Promise<Rspamd> {
  const binary = rspamdBinary();
  if (!binary) throw new Error("rspamd is not installed (Debian: apt-get install rspamd)");
  const redis = options.redis ?? process.env.RSPAMD_TEST_REDIS ?? "127.0.0.1:6379";
  const dir = mkdtempSync(join(tmpdir(), "test-rspamd-"));
  const prefix = `mbxtest_${process.pid}_${crypto.randomUUID().slice(0, 8)}_`;
  const ports = { normal: await freePort(), controller: await freePort() };
  const config = writeConfig(dir, ports, options.workers ?? 1, redis, prefix, options.localFiles ?? {});
  const log = join(dir, "rspamd.log");
  const args = [
    binary,
    "-f", // the foreground: this process is the daemon, and killing it stops the workers
    "-c",
    config,
    "--var",
    `CONFDIR=${DEBIAN_CONFDIR}`,
    "--var",
    `LOCAL_CONFDIR=${dir}`,
    "--var",
    `DBDIR=${join(dir, "db")}`,
    "--var",
    `RUNDIR=${dir}`,
    "--var",
    `LOGDIR=${dir}`,
    // As root Rspamd refuses to keep root for its workers unless told which user to be; root
    // keeps the scratch directory and the shared cache writable.
    ...(isRoot() ? ["-u", "root", "-g", "root"] : []),
  ];
  const child = Bun.spawn(args, { stdout: Bun.file(join(dir, "stdout.log")), stderr: Bun.file(join(dir, "stderr.log")) });
  const forget = atRunEnd({
    sync: () => {
      child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
    graceful: () => close(),
  });
  const url = `http://127.0.0.1:${ports.normal}`;
  const controllerUrl = `http://127.0.0.1:${ports.controller}`;

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    forget();
    child.kill("SIGTERM");
    const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
    if (!exited) {
      child.kill("SIGKILL");
      await child.exited;
    }
    await dropRedisKeys(redis, prefix);
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + START_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const why = `rspamd exited (${child.exitCode ?? child.signalCode}) before answering:\n${logTail(log)}\n${logTail(join(dir, "stderr.log"))}`;
      await close();
      throw new Error(why);
    }
    if ((await answersPing(url)) && (await answersPing(controllerUrl))) break;
    if (Date.now() > deadline) {
      const why = `rspamd did not answer /ping within ${START_MS} ms:\n${logTail(log)}`;
      await close();
      throw new Error(why);
    }
    await Bun.sleep(200);
  }

  const learn = async (kind: "spam" | "ham", raw: Uint8Array): Promise<boolean> => {
    const response = await fetch(`${controllerUrl}/learn${kind}`, {
      method: "POST",
      body: raw as Uint8Array<ArrayBuffer>,
      signal: AbortSignal.timeout(30_000),
    });
    if (response.ok) return true;
    // 208: already learned as this class; 400/404 with an error: not learnable (no tokens, ...).
    const text = await response.text();
    if (response.status === 208 || (response.status < 500 && /already learned|too few|no tokens|min_tokens|already in class/i.test(text)))
      return false;
    throw new Error(`rspamd learn${kind}: HTTP ${response.status} ${text.slice(0, 200)}`);
  };

  return { url, controllerUrl, redisPrefix: prefix, pid: child.pid, learn, close };
}
