// The scanners bench e2e puts in the service's path: clamd and one edge spam scanner (spamd or
// Rspamd, as SPAM_SCANNER chooses in production), each the address given in this environment or
// else a real daemon started for the run when its Debian package is installed. Each started
// daemon's pid comes back too, for the bench's CPU accounting.
import { rspamdAvailable, startRspamd } from "../../test/support/rspamd.ts";
import { scannerAvailable, startClamd, startSpamd } from "../../test/support/scanners.ts";

export type SpamScannerChoice = "spamd" | "rspamd" | "none";

export type EdgeScanners = {
  /** The service's scanner settings (CLAMD_ADDRESS, SPAMD_ADDRESS / RSPAMD_URL, SPAM_SCANNER). */
  env: Record<string, string>;
  /** What the report says about each. */
  description: string;
  /** Daemons started here: pid for CPU accounting, close() at the end. */
  started: { name: string; pid: number; close(): Promise<void> }[];
};

export type EdgeScannerOptions = { scanner: SpamScannerChoice; spamdChildren: number; rspamdWorkers: number };

export async function startEdgeScanners(options: EdgeScannerOptions): Promise<EdgeScanners> {
  const started: EdgeScanners["started"] = [];
  const env: Record<string, string> = {};
  const described: string[] = [];
  try {
    const clamd = async () => {
      if (process.env.CLAMD_ADDRESS) return process.env.CLAMD_ADDRESS;
      if (!scannerAvailable("clamd")) return null;
      const daemon = await startClamd();
      started.push({ name: "clamd", pid: daemon.pid, close: daemon.close });
      return daemon.address;
    };
    const spam = async (): Promise<string | null> => {
      if (options.scanner === "spamd") {
        if (process.env.SPAMD_ADDRESS) return (env.SPAMD_ADDRESS = process.env.SPAMD_ADDRESS);
        if (!scannerAvailable("spamd")) throw new Error("--scanner spamd: spamd is not installed (Debian: spamassassin spamd)");
        const daemon = await startSpamd({ children: options.spamdChildren });
        started.push({ name: "spamd", pid: daemon.pid, close: daemon.close });
        return (env.SPAMD_ADDRESS = daemon.address);
      }
      if (options.scanner === "rspamd") {
        if (process.env.RSPAMD_URL) return (env.RSPAMD_URL = process.env.RSPAMD_URL);
        if (!rspamdAvailable()) throw new Error("--scanner rspamd: rspamd is not installed (Debian: rspamd)");
        const daemon = await startRspamd({ workers: options.rspamdWorkers });
        started.push({ name: "rspamd", pid: daemon.pid, close: daemon.close });
        return (env.RSPAMD_URL = daemon.url);
      }
      return null;
    };
    const [clamdAddress, spamAddress] = await Promise.all([clamd(), spam()]);
    if (clamdAddress) env.CLAMD_ADDRESS = clamdAddress;
    if (options.scanner !== "none") env.SPAM_SCANNER = options.scanner;
    described.push(`clamd ${clamdAddress ?? "none"}`);
    described.push(
      options.scanner === "none"
        ? "spam scanner none"
        : `${options.scanner} ${spamAddress}` +
            (options.scanner === "spamd" && !process.env.SPAMD_ADDRESS ? ` (-m ${options.spamdChildren})` : ""),
    );
    return { env, description: described.join(", "), started };
  } catch (error) {
    for (const daemon of started) await daemon.close();
    throw error;
  }
}
