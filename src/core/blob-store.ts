// Message content in S3-compatible object storage (BLOB_STORE_URL), optional: PostgreSQL keeps the
// metadata and, without a store, the content too. Requests are signed with aws4fetch (SigV4 over
// the standard fetch, so Bun and Deno run the same code) and go to path-style URLs
// (`<endpoint>/<bucket>/<key>`), which S3, MinIO, R2, Ceph and s3rver all answer.
// A write is checked before anyone is told the content is safe: S3 answers a single-part PUT with
// the MD5 of what it stored as its ETag, and a different one is a failed write. A read is checked
// against the SHA-256 PostgreSQL holds for the content (content.ts).
import { createHash } from "node:crypto";
import { AwsClient } from "aws4fetch";

export type BlobStore = {
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The object's bytes; throws BlobMissing for none, BlobStoreUnavailable for anything else. */
  get(key: string): Promise<Uint8Array>;
  /** Idempotent: a missing object is not an error. */
  delete(key: string): Promise<void>;
};

/** The store did not answer, or answered with an error: try again later (SMTP 4xx, HTTP 503). */
export class BlobStoreUnavailable extends Error {}
export class BlobMissing extends Error {}

const TIMEOUT_MS = 15_000;

export function makeBlobStore(setting: { url: string; region: string }): BlobStore {
  const url = new URL(setting.url);
  const aws = new AwsClient({
    accessKeyId: decodeURIComponent(url.username),
    secretAccessKey: decodeURIComponent(url.password),
    service: "s3",
    region: setting.region,
  });
  const base = `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, "")}`;
  const objectUrl = (key: string) => `${base}/${key.split("/").map(encodeURIComponent).join("/")}`;
  const call = async (key: string, init: RequestInit): Promise<Response> => {
    try {
      return await aws.fetch(objectUrl(key), { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new BlobStoreUnavailable(`object store unreachable: ${(error as Error).message}`);
    }
  };
  return {
    async put(key, bytes) {
      const md5 = createHash("md5").update(bytes).digest();
      const response = await call(key, {
        method: "PUT",
        body: bytes as Uint8Array<ArrayBuffer>,
        headers: { "content-md5": md5.toString("base64"), "content-type": "application/octet-stream" },
      });
      await response.arrayBuffer().catch(() => {});
      if (response.status !== 200) throw new BlobStoreUnavailable(`object store refused the write of ${key}: ${response.status}`);
      const etag = (response.headers.get("etag") ?? "").replace(/"/g, "");
      if (etag !== md5.toString("hex")) throw new BlobStoreUnavailable(`object store stored other bytes for ${key} (ETag ${etag})`);
    },
    async get(key) {
      const response = await call(key, { method: "GET" });
      if (response.status === 404) {
        await response.arrayBuffer().catch(() => {});
        throw new BlobMissing(`no object ${key}`);
      }
      if (response.status !== 200) {
        await response.arrayBuffer().catch(() => {});
        throw new BlobStoreUnavailable(`object store answered ${response.status} for ${key}`);
      }
      try {
        return new Uint8Array(await response.arrayBuffer());
      } catch (error) {
        throw new BlobStoreUnavailable(`object store read of ${key} broke off: ${(error as Error).message}`);
      }
    },
    async delete(key) {
      const response = await call(key, { method: "DELETE" });
      await response.arrayBuffer().catch(() => {});
      if (response.status !== 204 && response.status !== 200 && response.status !== 404) {
        throw new BlobStoreUnavailable(`object store refused the delete of ${key}: ${response.status}`);
      }
    },
  };
}
