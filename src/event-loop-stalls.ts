// Notices when this process's event loop was held: a timer asks to run every few milliseconds, and
// when it runs much later than asked, nothing else ran in between either (a request, an SMTP
// reply, /readyz). Each such gap is one log line with its length, its end, and the CPU time the
// process used meanwhile: close to the gap, this process was working (its own code, or collecting
// garbage); far below it, it was waiting (for a CPU the machine's other processes held, or in a
// blocking call). A profile or the stage lines around that moment then say what held it. Off
// unless EVENT_LOOP_STALL_LOG_MS is set.
import type { Logger } from "./log.ts";

const TICK_MS = 5;

/** Starts watching; the returned function stops it. A gap of `thresholdMs` or more is logged. */
export function watchEventLoopStalls(log: Logger, thresholdMs: number): () => void {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const gap = now - last - TICK_MS;
    if (gap >= thresholdMs) {
      log.warn("event_loop.stall", {
        stall_ms: Math.round(gap),
        cpu_ms: Math.round((cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000),
        ended_at_ms: Math.round(performance.timeOrigin + now),
      });
    }
    [last, lastCpu] = [now, cpu];
  }, TICK_MS);
  // The watch alone never keeps the process alive.
  timer.unref?.();
  return () => clearInterval(timer);
}
