// Scanner addresses: "tcp://host:port", "host:port", "unix:/path" or "/path".
import { connect, type Socket } from "node:net";

function connectTo(address: string): Socket {
  if (address.startsWith("unix:")) return connect({ path: address.slice(5) });
  if (address.startsWith("/")) return connect({ path: address });
  const bare = address.replace(/^tcp:\/\//, "");
  const colon = bare.lastIndexOf(":");
  if (colon < 0) throw new Error(`scanner address needs a port: ${address}`);
  return connect({ host: bare.slice(0, colon).replace(/^\[|\]$/g, ""), port: Number(bare.slice(colon + 1)) });
}

/** Writes the request, reads until the peer closes (or `done` says the reply is complete). */
export function exchange(address: string, request: Uint8Array[], timeoutMs: number, done?: (reply: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connectTo(address);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks));
    };
    const timer = setTimeout(() => finish(new Error(`no answer from ${address} within ${timeoutMs} ms`)), timeoutMs);
    socket.on("connect", () => {
      for (const part of request) socket.write(part);
    });
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      if (done?.(Buffer.concat(chunks))) finish(null);
    });
    socket.on("end", () => finish(null));
    socket.on("error", (error) => finish(error));
  });
}
