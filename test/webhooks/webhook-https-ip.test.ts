// A webhook URL written with an IP address over https is delivered: no TLS server name is sent (SNI
// names hosts only), and the receiver's certificate is verified against the address. Checked in
// a child process that trusts the test's own certificate authority (NODE_EXTRA_CA_CERTS is read
// at start-up), against a real https receiver whose certificate names IP 127.0.0.1.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "webhook-https-ip-"));
let server: Server;
let port: number;
const received: string[] = [];

beforeAll(async () => {
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=webhook receiver",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  server = createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      received.push(`${request.headers.host} ${body}`);
      response.writeHead(204).end();
    });
  });
  port = await new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)));
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

function attempt(url: string, trust: boolean): Promise<{ ok: boolean; out: string }> {
  const script = join(dir, "post.ts");
  writeFileSync(
    script,
    `import { postWebhook } from ${JSON.stringify(new URL("../../src/core/webhooks/post.ts", import.meta.url).pathname)};
const url = new URL(${JSON.stringify(url)});
postWebhook({ url, address: "127.0.0.1", family: 4 }, '{"hello":1}', {}, 5000).then(
  (r) => console.log("status", r.status),
  (e) => console.log("error", e.message),
);`,
  );
  const env = { PATH: process.env.PATH ?? "", ...(trust ? { NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") } : {}) };
  // Not spawnSync: the receiver runs in this process and must answer meanwhile.
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { env });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.on("close", () => resolve({ ok: out.includes("status 204"), out }));
  });
}

test("https to an IP literal is delivered, verified against the address", async () => {
  const delivered = await attempt(`https://127.0.0.1:${port}/hook`, true);
  expect(delivered.out).toContain("status 204");
  expect(received).toEqual([`127.0.0.1:${port} {"hello":1}`]);
});

test("and an untrusted certificate on that address is still refused", async () => {
  const refused = await attempt(`https://127.0.0.1:${port}/hook`, false);
  expect(refused.ok).toBe(false);
  expect(refused.out).toMatch(/certificate/i);
  expect(refused.out).not.toContain("ServerName");
});
