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

export function makeLogger(level: LogLevel, write: (line: string) => void = (line) => console.log(line)): Logger {
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
