// Runs after `npm ci` / `npm install` (postinstall). postgres.js 3.4.9 crashes the whole process
// when a connection dies inside a transaction: begin() writes its ROLLBACK after the socket is
// gone, and the deferred flush calls socket.write on null (porsager/postgres#1208, #1154, #1066).
// The SMTP listener must answer 4xx and live on, so until a fixed release exists we apply the
// two-line fix upstream proposes: a write without a socket fails its queries with
// CONNECTION_CLOSED, and a closed connection forgets its unflushed bytes so a reconnect starts clean.
// Idempotent; fails loudly if the library text changed, so a version bump cannot skip it silently.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "postgres");
const MARKER = "/* agent-mailbox: socket-closed guard */";

const nextWriteBefore = `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`;
const nextWriteAfter = `  function nextWrite(fn) {
    ${MARKER}
    if (!socket) {
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`;
const closedBefore = `  async function closed(hadError) {
    incoming = Buffer.alloc(0)
    remaining = 0
    incomings = null
    clearImmediate(nextWriteTimer)`;
const closedAfter = `${closedBefore}
    chunk = nextWriteTimer = null`;

if (!existsSync(root)) process.exit(0); // not installed (e.g. a production image without it)
for (const file of ["src/connection.js", "cjs/src/connection.js", "cf/src/connection.js"].map((f) => join(root, f))) {
  if (!existsSync(file)) continue;
  let text = readFileSync(file, "utf8");
  if (text.includes(MARKER)) continue;
  if (!text.includes(nextWriteBefore) || !text.includes(closedBefore)) {
    console.error(`patch-postgres: ${file} does not look like postgres 3.4.9; review scripts/patch-postgres.mjs`);
    process.exit(1);
  }
  text = text.replace(nextWriteBefore, nextWriteAfter).replace(closedBefore, closedAfter);
  writeFileSync(file, text);
}
