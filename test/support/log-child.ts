// A process that logs through the service's logger and then ends in the way its argument names,
// for test/project/log.test.ts. It counts the writes to stdout (console.log calls) and reports them on
// stderr, since stdout carries the lines under test.
import { makeLogger } from "../../src/log.ts";

const writes = { count: 0 };
const original = console.log.bind(console);
console.log = (...args: unknown[]) => {
  writes.count++;
  original(...args);
};
process.on("exit", () => console.error(`writes=${writes.count}`));

const log = makeLogger("info");
const lines = Number(process.env.LINES ?? 5);
const burst = () => {
  for (let i = 0; i < lines; i++) log.info("test.line", { n: i });
};

switch (process.argv[2]) {
  case "turns": // two turns of the event loop, then the loop runs dry
    burst();
    setTimeout(() => log.info("test.later", { n: lines }), 20);
    break;
  case "exit": // process.exit in the same turn as the lines
    burst();
    process.exit(3);
    break;
  case "throw": // an uncaught exception in the same turn
    burst();
    throw new Error("crash after logging");
  case "sigterm": // as src/main.ts: the SIGTERM handler logs and exits
    process.on("SIGTERM", () => {
      log.info("test.stopping", {});
      process.exit(0);
    });
    burst();
    console.error("ready");
    setInterval(() => {}, 1000);
    break;
}
