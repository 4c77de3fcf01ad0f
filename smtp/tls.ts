// The STARTTLS certificate: the configured one, or a self-signed one generated once under the data
// directory (fine for the embedded default: MTAs deliver over opportunistic TLS without verifying).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Config } from "../src/config.ts";

export type TlsMaterial = { key: string; cert: string };

export async function loadTlsMaterial(config: Config): Promise<TlsMaterial> {
  const { tlsCertFile, tlsKeyFile, hostname } = config.smtp;
  if (tlsCertFile && tlsKeyFile) {
    return { cert: readFileSync(tlsCertFile, "utf8"), key: readFileSync(tlsKeyFile, "utf8") };
  }
  const dir = resolve(config.dataDir, "tls");
  const certPath = join(dir, "smtp-cert.pem");
  const keyPath = join(dir, "smtp-key.pem");
  if (existsSync(certPath) && existsSync(keyPath)) {
    return { cert: readFileSync(certPath, "utf8"), key: readFileSync(keyPath, "utf8") };
  }
  const { generate } = await import("selfsigned");
  const now = new Date();
  const pems = await generate([{ name: "commonName", value: hostname }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 5 * 365 * 24 * 3600 * 1000),
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert);
  return { cert: pems.cert, key: pems.private };
}
