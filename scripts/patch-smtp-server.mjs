// Runs after `npm ci` / `npm install` (postinstall). smtp-server 3.21.6 waits a fixed 100 ms after
// every connection before it greets, so that a client that talks first ("early talker", a trait of
// spam bots that do not wait for the 220) is caught and refused with 421. Measured with
// `bun run bench smtp`, that pause, not our work, bounded a sender that opens one connection per
// message (the way most MTAs deliver) to ~10 messages/s per connection. This patch makes the pause
// a server option, `greetingDelay` (ms; the library's 100 when absent), which the listener sets
// from SMTP_GREETING_DELAY_MS. A delay of 0 greets on the next turn of the event loop
// (setImmediate): a timer of 0 ms still waits for the timer phase, at least a millisecond on Bun,
// which every new connection paid before its 220. The refusal itself is untouched: a command that
// arrives before the greeting is still answered 421 "You talk too soon", whatever the delay.
// Idempotent (a tree patched by an earlier version of this script is brought up to this one);
// fails loudly if the library text changed, so a version bump cannot skip it silently.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "smtp-server");
const MARKER = "/* agent-mailbox: greetingDelay option, 0 on the next turn */";
const original = "let readyTimer = setTimeout(() => this.connectionReady(), 100);";
// What the earlier version of this script wrote (a timer even for 0).
const earlier = `/* agent-mailbox: greetingDelay option */ let readyTimer = setTimeout(() => this.connectionReady(), typeof this._server.options.greetingDelay === 'number' ? this._server.options.greetingDelay : 100);`;
const patched = `${MARKER} let greetingDelay = typeof this._server.options.greetingDelay === 'number' ? this._server.options.greetingDelay : 100; let readyTimer = greetingDelay === 0 ? setImmediate(() => this.connectionReady()) : setTimeout(() => this.connectionReady(), greetingDelay);`;

if (!existsSync(root)) process.exit(0); // not installed (e.g. a production image without it)
for (const file of ["dist/esm/smtp-connection.js", "dist/cjs/smtp-connection.js", "lib/smtp-connection.js"].map((f) => join(root, f))) {
  if (!existsSync(file)) continue;
  const text = readFileSync(file, "utf8");
  if (text.includes(MARKER)) continue;
  const before = text.includes(earlier) ? earlier : original;
  if (!text.includes(before)) {
    console.error(`patch-smtp-server: ${file} does not look like smtp-server 3.21.6; review scripts/patch-smtp-server.mjs`);
    process.exit(1);
  }
  writeFileSync(file, text.replace(before, patched));
}
