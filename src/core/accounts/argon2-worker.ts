// Runs argon2id off the main thread: hash-wasm's WebAssembly holds the thread for the whole
// derivation (tens of milliseconds at our parameters), which on the main thread stalls every request
// of the process. A Web Worker, so Bun and Deno run it alike. See passwords.ts.
import { argon2id } from "hash-wasm";

export type Argon2Job = {
  id: number;
  password: Uint8Array;
  salt: Uint8Array;
  memoryKiB: number;
  iterations: number;
  parallelism: number;
  hashLength: number;
};
export type Argon2Reply = { id: number; hash: Uint8Array } | { id: number; error: string };

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Argon2Job>) => void) | null;
  postMessage(reply: Argon2Reply): void;
};

scope.onmessage = async ({ data: job }) => {
  try {
    const hash = await argon2id({
      password: job.password,
      salt: job.salt,
      memorySize: job.memoryKiB,
      iterations: job.iterations,
      parallelism: job.parallelism,
      hashLength: job.hashLength,
      outputType: "binary",
    });
    scope.postMessage({ id: job.id, hash });
  } catch (error) {
    scope.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) });
  }
};
