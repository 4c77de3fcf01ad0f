// A real S3-protocol server for the object-store tests: s3rver (npm, a dev dependency), started in
// this process on loopback, speaking S3's REST API with SigV4, its bucket in a temporary folder.
// stop() and start() again on the same port let a test take the store down and bring it back.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AwsClient } from "aws4fetch";
import S3rver from "s3rver";

export type S3Server = {
  port: number;
  /** BLOB_STORE_URL for the service under test */
  url: string;
  /** The same URL on another port (a closed one is a store that is down). */
  urlAt(port: number): string;
  /** GET of one object, signed as the service signs */
  object(key: string): Promise<Response>;
  stop(): Promise<void>;
  /** Starts again on the same port, with the same objects. */
  restart(): Promise<void>;
  /** Stops it (if running) and removes its folder. */
  close(): Promise<void>;
};

const aws = new AwsClient({ accessKeyId: "S3RVER", secretAccessKey: "S3RVER", service: "s3", region: "us-east-1" });

export async function startS3Server(bucket: string): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), "s3rver-"));
  const run = async (port: number) => {
    const server = new S3rver({ port, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
    return { server, port: (await server.run()).port };
  };
  let { server, port } = await run(0);
  const urlAt = (at: number) => `http://S3RVER:S3RVER@127.0.0.1:${at}/${bucket}`;
  return {
    port,
    url: urlAt(port),
    urlAt,
    object: (key) => aws.fetch(`http://127.0.0.1:${port}/${bucket}/${key}`),
    stop: () => server.close(),
    restart: async () => {
      ({ server, port } = await run(port));
    },
    close: async () => {
      await server.close().catch(() => {});
      await rm(directory, { recursive: true, force: true });
    },
  };
}
