// What a test process started outside itself (an embedded PostgreSQL, clamd, spamd, Rspamd,
// PgBouncer, a database on the shared server) is stopped however the process ends: after its
// last file (the preload's afterAll, test/support/preload.ts), after a failure, on Ctrl-C or
// SIGTERM, or at the exit of a script that is not a test. `bun test` fires no "exit" event, so
// a process.once("exit") hook alone left every embedded PostgreSQL running after `npm test`.
//
// Each cleanup has a blocking form for the moments nothing asynchronous can finish (a signal,
// "exit"), and may have a graceful asynchronous one for the end of the run.
export type Cleanup = { sync(): void; graceful?(): Promise<void> };

const KEY = Symbol.for("agent-mailbox.test.run-end");
type Registry = { cleanups: Cleanup[]; hooked: boolean };
// On globalThis: every module instance of this file in one process shares the list.
const registry: Registry =
  ((globalThis as Record<symbol, unknown>)[KEY] as Registry | undefined) ??
  ((globalThis as Record<symbol, unknown>)[KEY] = { cleanups: [], hooked: false } as Registry);

/** Registers a cleanup, run last-registered first; the returned function unregisters it (a clean close). */
export function atRunEnd(cleanup: Cleanup): () => void {
  hookProcess();
  registry.cleanups.push(cleanup);
  return () => {
    const at = registry.cleanups.indexOf(cleanup);
    if (at >= 0) registry.cleanups.splice(at, 1);
  };
}

/** Runs every cleanup gracefully (the end of a test run). */
export async function runCleanups(): Promise<void> {
  while (registry.cleanups.length > 0) {
    const cleanup = registry.cleanups.pop()!;
    try {
      await (cleanup.graceful ? cleanup.graceful() : cleanup.sync());
    } catch {
      try {
        cleanup.sync();
      } catch {}
    }
  }
}

/** Runs every cleanup in its blocking form (a signal, or "exit"). */
export function runCleanupsSync(): void {
  while (registry.cleanups.length > 0) {
    try {
      registry.cleanups.pop()!.sync();
    } catch {}
  }
}

function hookProcess(): void {
  if (registry.hooked) return;
  registry.hooked = true;
  process.once("exit", runCleanupsSync);
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    process.once(signal, () => {
      runCleanupsSync();
      process.exit(code);
    });
  }
}
