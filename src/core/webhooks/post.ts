// One webhook HTTP attempt: POST to the address that was checked (the URL's host is kept for the
// Host header and TLS name), no redirects followed, the response read up to a small limit.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { WebhookTarget } from "./target.ts";

export type WebhookResponse = { status: number; retryAfter: string | null; snippet: string; latencyMs: number };

export const MAX_RESPONSE_BYTES = 4096;

export function postWebhook(
  target: WebhookTarget,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<WebhookResponse> {
  const started = performance.now();
  const { url } = target;
  const secure = url.protocol === "https:";
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send({
      host: target.address,
      family: target.family,
      port: url.port ? Number(url.port) : secure ? 443 : 80,
      path: `${url.pathname}${url.search}`,
      method: "POST",
      // TLS names a host by name only (SNI): for a URL written with an IP address there is none to
      // send, and the certificate is checked against that address (an IP subjectAltName).
      servername: secure && isIP(url.hostname.replace(/^\[|\]$/g, "")) === 0 ? url.hostname : undefined,
      headers: { ...headers, host: url.host, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
      timeout: timeoutMs,
    });
    const deadline = setTimeout(() => request.destroy(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    request.on("timeout", () => request.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    request.on("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        clearTimeout(deadline);
        const retryAfter = response.headers["retry-after"];
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: Array.isArray(retryAfter) ? (retryAfter[0] ?? null) : (retryAfter ?? null),
          snippet: Buffer.concat(chunks).toString("utf8").slice(0, 512),
          latencyMs: Math.round(performance.now() - started),
        });
      };
      response.on("data", (chunk: Buffer) => {
        if (size < MAX_RESPONSE_BYTES) chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - size));
        size += chunk.length;
        // Enough read: the status is what matters; don't let a receiver stream at us forever.
        if (size >= MAX_RESPONSE_BYTES) {
          response.destroy();
          finish();
        }
      });
      response.on("end", finish);
      response.on("error", finish);
    });
    request.end(body);
  });
}
