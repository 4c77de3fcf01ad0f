// Fair SMTP slots: one client address cannot hold every connection (another address still gets its
// 220), a session ends after SMTP_MAX_COMMANDS commands of any kind and after SMTP_MAX_SESSION_S
// whatever it does, and each end frees the slot. Real sockets over loopback, bound to 127.0.0.2
// and 127.0.0.3 (Linux routes all of 127/8 to the loopback interface).
import { afterAll, beforeAll, expect, test } from "bun:test";
import net from "node:net";
import { type SmtpListener, startSmtpListener } from "../../smtp/listener.ts";
import { makeTestContext, type TestContext } from "../support/context.ts";
import { reusableDataDir, servicesWith } from "../support/smtp-client.ts";

let ctx: TestContext;
const listeners: SmtpListener[] = [];

beforeAll(async () => {
  ctx = await makeTestContext({ DATA_DIR: reusableDataDir });
});
afterAll(async () => {
  for (const listener of listeners) await listener.close();
  await ctx.close();
});

async function listen(env: Record<string, string>): Promise<number> {
  const listener = await startSmtpListener(servicesWith(ctx, { DATA_DIR: reusableDataDir, ...env }), { port: 0, host: "127.0.0.1" });
  listeners.push(listener);
  return listener.port;
}

type Client = {
  /** Every reply line received so far. */
  lines: string[];
  next(): Promise<string>;
  send(line: string): void;
  closed: Promise<void>;
  close(): void;
};

function connect(port: number, from: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
    const lines: string[] = [];
    const waiting: ((line: string) => void)[] = [];
    let read = 0;
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
        lines.push(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        waiting.shift()?.(lines[read++]!);
      }
    });
    const closed = new Promise<void>((done) => socket.on("close", () => done()));
    const client: Client = {
      lines,
      next: () =>
        read < lines.length
          ? Promise.resolve(lines[read++]!)
          : Promise.race([
              new Promise<string>((done) => waiting.push(done)),
              closed.then(() => (read < lines.length ? lines[read++]! : "(closed)")),
            ]),
      send: (line) => socket.write(`${line}\r\n`),
      closed,
      close: () => socket.destroy(),
    };
    socket.once("connect", () => resolve(client));
    socket.once("error", reject);
  });
}

test("127.0.0.2 cannot take every slot: past its share it gets 421, and 127.0.0.3 still gets 220", async () => {
  const port = await listen({ SMTP_MAX_CONNECTIONS: "10", SMTP_MAX_CONNECTIONS_PER_ADDRESS: "4" });
  const flood = await Promise.all(Array.from({ length: 10 }, () => connect(port, "127.0.0.2")));
  const greetings = await Promise.all(flood.map((client) => client.next()));
  expect(greetings.filter((line) => line.startsWith("220 ")).length).toBe(4);
  const refused = greetings.filter((line) => line.startsWith("421 "));
  expect(refused.length).toBe(6);
  expect(refused[0]).toContain("Too many connections from your address");

  const other = await connect(port, "127.0.0.3");
  expect(await other.next()).toStartWith("220 ");
  other.close();

  // One of 127.0.0.2's sessions ends: its slot is free for that address again.
  const holders = flood.filter((_, i) => greetings[i]!.startsWith("220 "));
  holders[0]!.send("QUIT");
  await holders[0]!.closed;
  await Bun.sleep(50);
  const again = await connect(port, "127.0.0.2");
  expect(await again.next()).toStartWith("220 ");
  for (const client of [...flood, again]) client.close();
});

test("a session is closed after SMTP_MAX_COMMANDS commands of any kind, and its slot is freed", async () => {
  const port = await listen({ SMTP_MAX_COMMANDS: "10", SMTP_MAX_CONNECTIONS_PER_ADDRESS: "1" });
  const client = await connect(port, "127.0.0.2");
  expect(await client.next()).toStartWith("220 ");
  for (let i = 0; i < 10; i++) {
    client.send("NOOP");
    expect(await client.next()).toStartWith("250 ");
  }
  client.send("NOOP");
  expect(await client.next()).toBe("421 4.7.0 Too many commands, reconnect to go on");
  await client.closed;
  await Bun.sleep(50);
  // The only slot of 127.0.0.2 is free again.
  const next = await connect(port, "127.0.0.2");
  expect(await next.next()).toStartWith("220 ");
  next.close();
});

test("a session is closed after SMTP_MAX_SESSION_S however busy it keeps, and its slot is freed", async () => {
  const port = await listen({ SMTP_MAX_SESSION_S: "1", SMTP_MAX_CONNECTIONS_PER_ADDRESS: "1" });
  const client = await connect(port, "127.0.0.2");
  expect(await client.next()).toStartWith("220 ");
  const started = performance.now();
  let ended = false;
  void client.closed.then(() => (ended = true));
  // A NOOP every 200 ms keeps the idle timeout away; the session limit still ends it.
  while (!ended && performance.now() - started < 10_000) {
    client.send("NOOP");
    await Bun.sleep(200);
  }
  expect(ended).toBe(true);
  expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  expect(client.lines).toContain("421 4.4.2 Session lasted too long, reconnect to go on");
  await Bun.sleep(50);
  const next = await connect(port, "127.0.0.2");
  expect(await next.next()).toStartWith("220 ");
  next.close();
});
