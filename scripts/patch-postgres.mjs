// Runs after `npm ci` / `npm install` (postinstall). Carries fixes for open postgres.js 3.4.9
// reports until a release has them; docs/postgres-transactions.md says what each one prevents and
// how test/project/pg-transactions.stress.test.ts proves it. Remove a fix the day a release carries it.
//
// 1. socket-closed guard (#1208, #1154, #1066): begin() writes its ROLLBACK after the socket is
//    gone and the deferred flush calls socket.write on null, crashing the process. A write without
//    a socket fails its queries with CONNECTION_CLOSED; a closed connection forgets unflushed bytes.
// 2. reserve at BEGIN (#1189, #823): the hook that reserves a connection for begin() sat behind the
//    pipeline-capacity test, so a BEGIN that filled the pipeline (or met socket back-pressure) left
//    the connection in the pool with a transaction open, and unrelated queries ran inside it.
//    The hook now runs whenever BEGIN was written.
// 3. no pool hand-back on drain (#1204): a socket 'drain' with no query in flight handed the
//    connection to the pool even while a transaction held it.
// 4. closed transactions stay closed (#1216, as proposed in #1215): after its backend disconnects,
//    a begin() or reserve() handle keeps pointing at the connection object the pool reconnects
//    for others. Its callback's later queries, and its COMMIT or ROLLBACK, then ran on the
//    replacement, inside someone else's transaction. They now fail with the close error, queued
//    ones included.
// 5. forget the dead backend: a closed connection clears the dead backend's query state before
//    reuse, and fails whatever is still in flight even when the socket reported an error first
//    (Bun emits 'error' then 'close'; a ROLLBACK written between the two was never answered, and
//    its transaction hung for good, holding a pool slot).
//
// Idempotent (each fix has a marker); fails loudly if the library text changed, so a version
// bump cannot skip a fix silently.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", "postgres");

const fixes = [
  {
    file: "connection.js",
    marker: "/* agent-mailbox: socket-closed guard */",
    edits: [
      [
        `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`,
        `  function nextWrite(fn) {
    /* agent-mailbox: socket-closed guard */
    if (!socket) {
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`,
      ],
      [
        `  async function closed(hadError) {
    incoming = Buffer.alloc(0)
    remaining = 0
    incomings = null
    clearImmediate(nextWriteTimer)`,
        `  async function closed(hadError) {
    incoming = Buffer.alloc(0)
    remaining = 0
    incomings = null
    clearImmediate(nextWriteTimer)
    chunk = nextWriteTimer = null`,
      ],
    ],
  },
  {
    file: "connection.js",
    marker: "/* agent-mailbox: reserve at BEGIN */",
    edits: [
      [
        `      build(q)
      return write(toBuffer(q))
        && !q.describeFirst
        && !q.cursorFn
        && sent.length < max_pipeline
        && (!q.options.onexecute || q.options.onexecute(connection))`,
        `      build(q)
      const written = write(toBuffer(q))
      /* agent-mailbox: reserve at BEGIN */
      if (q.options.onexecute) {
        q.options.onexecute(connection)
        return false
      }
      return written
        && !q.describeFirst
        && !q.cursorFn
        && sent.length < max_pipeline`,
      ],
    ],
  },
  {
    file: "connection.js",
    marker: "/* agent-mailbox: no pool hand-back on drain */",
    edits: [
      [
        `  function drain() {
    !query && onopen(connection)`,
        `  function drain() {
    /* agent-mailbox: no pool hand-back on drain */
    !query && !connection.reserved && onopen(connection)`,
      ],
    ],
  },
  {
    file: "connection.js",
    marker: "/* agent-mailbox: forget the dead backend */",
    edits: [
      [
        `    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))
    closedTime = performance.now()`,
        `    /* agent-mailbox: forget the dead backend */
    if (query || sent.length)
      error(Errors.connection('CONNECTION_CLOSED', options, socket))
    query = errorResponse = results = final = null
    result = new Result()
    rows = 0
    closedTime = performance.now()`,
      ],
    ],
  },
  {
    file: "index.js",
    marker: "/* agent-mailbox: closed transactions stay closed */",
    edits: [
      [
        `    move(c, reserved)
    c.reserved = () => queue.length
      ? c.execute(queue.shift())
      : move(c, reserved)
    c.reserved.release = true

    const sql = Sql(handler)
    sql.release = () => {
      c.reserved = null
      onopen(c)
    }

    return sql

    function handler(q) {
      c.queue === full`,
        `    move(c, reserved)
    c.reserved = () => queue.length
      ? c.execute(queue.shift())
      : move(c, reserved)
    c.reserved.release = true
    /* agent-mailbox: closed transactions stay closed */
    let closedError = null
    c.onclose = e => {
      closedError = e
      while (queue.length)
        queue.shift().reject(e)
    }

    const sql = Sql(handler)
    sql.release = () => {
      if (closedError)
        return
      c.reserved = null
      onopen(c)
    }

    return sql

    function handler(q) {
      if (closedError)
        return q.reject(closedError)
      c.queue === full`,
      ],
      [
        `    let savepoints = 0
      , connection
      , prepare = null

    try {
      await sql.unsafe('begin ' + options.replace(/[^a-z ]/ig, ''), [], { onexecute }).execute()
      return await Promise.race([
        scope(connection, fn),
        new Promise((_, reject) => connection.onclose = reject)
      ])`,
        `    let savepoints = 0
      , connection
      , prepare = null
      , closedError = null

    try {
      await sql.unsafe('begin ' + options.replace(/[^a-z ]/ig, ''), [], { onexecute }).execute()
      return await Promise.race([
        scope(connection, fn),
        new Promise((_, reject) => connection.onclose = e => {
          closedError = e
          while (queries.length)
            queries.shift().reject(e)
          reject(e)
        })
      ])`,
      ],
      [
        `      function handler(q) {
        q.catch(e => uncaughtError || (uncaughtError = e))
        c.queue === full`,
        `      function handler(q) {
        q.catch(e => uncaughtError || (uncaughtError = e))
        if (closedError)
          return q.reject(closedError)
        c.queue === full`,
      ],
    ],
  },
];

if (!existsSync(root)) process.exit(0); // not installed (e.g. a production image without it)
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
for (const dir of ["src", "cjs/src", "cf/src"]) {
  for (const fix of fixes) {
    const file = join(root, dir, fix.file);
    if (!existsSync(file)) continue;
    let text = readFileSync(file, "utf8");
    if (text.includes(fix.marker)) continue;
    const missing = fix.edits.filter(([before]) => !text.includes(before));
    if (missing.length) {
      console.error(
        `patch-postgres: ${file} (postgres ${version}) lacks the text "${fix.marker}" replaces; review scripts/patch-postgres.mjs`,
      );
      process.exit(1);
    }
    for (const [before, after] of fix.edits) text = text.replace(before, after);
    writeFileSync(file, text);
  }
}
