// One JSON line per event on stdout. Callers pass ids and figures, never bodies or secrets.

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type LogFields = Record<string, unknown>;
export type Logger = {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
};

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Lines held before a write even within one turn, so that a burst of logging stays bounded in memory. */
const MAX_PENDING_LINES = 256;

let stdoutWriter: ((line: string) => void) | null = null;

/**
 * Writes lines to stdout, those of one event-loop turn together in one write: the request log is
 * a line per request, and a write per line costs more than the line itself. The
 * lines go out at the end of the turn that logged them, and at once when the process exits
 * (process.exit after SIGTERM, a crash handler's exit, an uncaught exception, the loop running
 * dry), so a line logged is lost only if the process is killed outright within that turn.
 */
export function stdoutLines(): (line: string) => void {
  if (stdoutWriter) return stdoutWriter;
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const lines = pending;
    pending = [];
    console.log(lines.join("\n"));
  };
  process.on("exit", flush);
  stdoutWriter = (line) => {
    const count = pending.push(line);
    if (count === 1) setImmediate(flush);
    else if (count >= MAX_PENDING_LINES) flush();
  };
  return stdoutWriter;
}

export function makeLogger(level: LogLevel, write: (line: string) => void = stdoutLines()): Logger {
  const emit =
    (at: Exclude<LogLevel, "silent">) =>
    (event: string, fields: LogFields = {}) => {
      if (rank[at] < rank[level]) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: at, event, ...fields }));
    };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

export function errorFields(error: unknown): LogFields {
  if (error instanceof Error) return { error: error.message, error_name: error.name };
  return { error: String(error) };
}
