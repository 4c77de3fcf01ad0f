// A DNS stub resolver with the result shapes and error codes of node's
// dns.promises.resolve, and a hard time limit.
//
// Why not node:dns's Resolver: on Bun it returns each <character-string> of a
// TXT record as a separate record (oven-sh/bun#21370), which breaks every
// 2048-bit DKIM key (always split at 255 bytes), and it reports ENOTFOUND where
// node reports ENODATA. So we speak RFC 1035 ourselves: UDP with EDNS0, TCP
// when the answer is truncated, to recursive servers we are configured with.
import dgram from "node:dgram";
import { getServers } from "node:dns";
import net from "node:net";

/** `dns.promises.resolve` semantics: errors carry `.code` (ENOTFOUND, ENODATA, ETIMEOUT...). */
export type ResolveFn = (name: string, rrtype: string) => Promise<any>;

type Server = { host: string; port: number; family: 4 | 6 };

const TYPE_CODES: Record<string, number> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
};
const RCODE_ERRORS: Record<number, string> = {
  1: "EFORMERR",
  2: "ESERVFAIL",
  3: "ENOTFOUND",
  4: "ENOTIMP",
  5: "EREFUSED",
};
const ROUNDS = 2; // each server gets two tries, so one lost UDP datagram is survivable
const EDNS_PAYLOAD = 1232; // the DNS flag day 2020 size: fits a DKIM key, avoids fragmentation

export function makeResolver(options: { servers: string[]; timeoutMs: number }): ResolveFn {
  const entries = options.servers.length > 0 ? options.servers : getServers();
  const servers = entries.map(parseServer);
  const { timeoutMs } = options;
  return async (name, rrtype) => {
    const type = String(rrtype).toUpperCase();
    if (!(type in TYPE_CODES)) {
      throw Object.assign(new TypeError(`unsupported rrtype: ${rrtype}`), { code: "ERR_INVALID_ARG_VALUE" });
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    // lookup() keeps to timeoutMs itself; this backstop only guarantees an
    // answer if a socket misbehaves, so it fires a little later.
    const backstop = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(dnsError("ETIMEOUT", type, name)), timeoutMs + 50);
    });
    try {
      return await Promise.race([lookup(servers, name, type, timeoutMs), backstop]);
    } finally {
      clearTimeout(timer);
    }
  };
}

export function parseServer(entry: string): Server {
  let host = entry;
  let port = 53;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const hostPort = /^([^:]+):(\d+)$/.exec(entry);
  if (bracketed) {
    host = bracketed[1];
    if (bracketed[2]) port = Number(bracketed[2]);
  } else if (hostPort) {
    host = hostPort[1];
    port = Number(hostPort[2]);
  }
  const family = net.isIP(host);
  if (family === 0 || !(port > 0 && port < 65536)) throw new Error(`invalid DNS server address: ${entry}`);
  return { host, port, family: family as 4 | 6 };
}

async function lookup(servers: Server[], name: string, type: string, timeoutMs: number): Promise<any> {
  const qname = name.replace(/\.$/, "");
  const query = queryEncoder(qname, type);
  const deadline = Date.now() + timeoutMs;
  const perTry = Math.max(1, Math.floor(timeoutMs / (servers.length * ROUNDS)));
  let lastCode = "ETIMEOUT";
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of servers) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw dnsError(lastCode, type, name);
      let message: Parsed;
      try {
        const response = await exchange(server, query, Math.min(perTry, remaining));
        message = parseResponse(response.packet, response.id, qname, TYPE_CODES[type]);
      } catch (error: any) {
        lastCode = typeof error?.code === "string" ? error.code : "EBADRESP";
        continue;
      }
      if (message.rcode === 0) {
        if (message.records.length === 0) throw dnsError("ENODATA", type, name);
        return type === "SOA" ? message.records[0] : message.records;
      }
      // NXDOMAIN is an answer; any other rcode is this server's trouble, so ask the next.
      lastCode = RCODE_ERRORS[message.rcode] ?? "EBADRESP";
      if (lastCode === "ENOTFOUND") throw dnsError(lastCode, type, name);
    }
  }
  throw dnsError(lastCode, type, name);
}

function queryEncoder(qname: string, type: string): (id: number, edns: boolean) => Uint8Array {
  const labels = qname === "" ? [] : qname.split(".").map((label) => new TextEncoder().encode(label));
  const nameLength = labels.reduce((sum, label) => sum + label.length + 1, 1);
  if (labels.some((label) => label.length === 0 || label.length > 63) || nameLength > 255) {
    throw dnsError("EBADNAME", type, qname);
  }
  return (id, edns) => {
    const bytes = new Uint8Array(12 + nameLength + 4 + (edns ? 11 : 0));
    const view = new DataView(bytes.buffer);
    view.setUint16(0, id);
    view.setUint16(2, 0x0100); // standard query, recursion desired
    view.setUint16(4, 1);
    view.setUint16(10, edns ? 1 : 0);
    let at = 12;
    for (const label of labels) {
      bytes[at++] = label.length;
      bytes.set(label, at);
      at += label.length;
    }
    bytes[at++] = 0;
    view.setUint16(at, TYPE_CODES[type]);
    view.setUint16(at + 2, 1); // class IN
    if (edns) {
      // OPT pseudo-record: root name, type 41, class = our UDP payload size.
      view.setUint16(at + 5, 41);
      view.setUint16(at + 7, EDNS_PAYLOAD);
    }
    return bytes;
  };
}

// One query to one server: UDP first, TCP if the answer was truncated, and
// without EDNS if the server does not understand it.
async function exchange(
  server: Server,
  query: (id: number, edns: boolean) => Uint8Array,
  timeoutMs: number,
): Promise<{ packet: Uint8Array; id: number }> {
  const deadline = Date.now() + timeoutMs;
  for (const edns of [true, false]) {
    const id = crypto.getRandomValues(new Uint16Array(1))[0];
    const packet = query(id, edns);
    let answer = await udpExchange(server, packet, id, deadline - Date.now());
    if (answer[2] & 0x02) answer = await tcpExchange(server, packet, deadline - Date.now());
    const rcode = answer[3] & 0x0f;
    if (edns && rcode === 1) continue;
    return { packet: answer, id };
  }
  throw transportError("EBADRESP");
}

function transportError(code: "ETIMEOUT" | "ECONNREFUSED" | "EBADRESP", cause?: unknown): Error {
  return Object.assign(new Error(`DNS transport: ${code}`), { code, cause });
}

function udpExchange(server: Server, packet: Uint8Array, id: number, timeoutMs: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(server.family === 6 ? "udp6" : "udp4");
    let done = false;
    const finish = (error: Error | null, answer?: Uint8Array) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.close();
      if (error) reject(error);
      else resolve(answer!);
    };
    const timer = setTimeout(() => finish(transportError("ETIMEOUT")), Math.max(timeoutMs, 1));
    socket.on("error", (error) => finish(transportError("ECONNREFUSED", error)));
    // A connected socket only hears from the server we asked; the random id
    // and the question check in parseResponse guard against spoofed answers.
    socket.on("message", (message) => {
      if (message.length < 12 || message.readUInt16BE(0) !== id) return;
      finish(null, new Uint8Array(message));
    });
    socket.connect(server.port, server.host, () => {
      socket.send(packet, (error) => {
        if (error) finish(transportError("ECONNREFUSED", error));
      });
    });
  });
}

function tcpExchange(server: Server, packet: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: server.host, port: server.port });
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (error: Error | null, answer?: Uint8Array) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(answer!);
    };
    const timer = setTimeout(() => finish(transportError("ETIMEOUT")), Math.max(timeoutMs, 1));
    socket.on("error", (error) => finish(transportError("ECONNREFUSED", error)));
    socket.on("connect", () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(packet.length);
      socket.write(Buffer.concat([length, packet]));
    });
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        finish(null, new Uint8Array(received.subarray(2, 2 + received.readUInt16BE(0))));
      }
    });
    socket.on("end", () => finish(transportError("EBADRESP")));
  });
}

type Parsed = { rcode: number; records: any[] };

function parseResponse(packet: Uint8Array, id: number, qname: string, qtype: number): Parsed {
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  const bad = () => transportError("EBADRESP");
  try {
    const flags = view.getUint16(2);
    if (view.getUint16(0) !== id || !(flags & 0x8000)) throw bad();
    const questions = view.getUint16(4);
    const answers = view.getUint16(6);
    let at = 12;
    for (let i = 0; i < questions; i++) {
      const question = readName(packet, at);
      at = question.next;
      if (question.name.toLowerCase() !== qname.toLowerCase() || view.getUint16(at) !== qtype) throw bad();
      at += 4;
    }
    const records: any[] = [];
    for (let i = 0; i < answers; i++) {
      at = readName(packet, at).next;
      const type = view.getUint16(at);
      const rdLength = view.getUint16(at + 8);
      const start = at + 10;
      at = start + rdLength;
      if (at > packet.length) throw bad();
      // A recursive server may prepend the CNAME chain; node keeps only the asked type.
      if (type === qtype && view.getUint16(start - 8) === 1) records.push(decodeRecord(packet, view, type, start, rdLength));
    }
    return { rcode: flags & 0x0f, records };
  } catch (error: any) {
    throw error?.code ? error : bad();
  }
}

function decodeRecord(packet: Uint8Array, view: DataView, type: number, start: number, length: number): any {
  switch (type) {
    case 1:
      return Array.from(packet.subarray(start, start + 4)).join(".");
    case 28:
      return formatIpv6(packet.subarray(start, start + 16));
    case 2:
    case 5:
    case 12:
      return readName(packet, start).name;
    case 15:
      return { exchange: readName(packet, start + 2).name, priority: view.getUint16(start) };
    case 16: {
      const strings: string[] = [];
      const decoder = new TextDecoder();
      for (let at = start; at < start + length; at += 1 + packet[at]) {
        strings.push(decoder.decode(packet.subarray(at + 1, at + 1 + packet[at])));
      }
      return strings;
    }
    case 33:
      return {
        priority: view.getUint16(start),
        weight: view.getUint16(start + 2),
        port: view.getUint16(start + 4),
        name: readName(packet, start + 6).name,
      };
    case 6: {
      const nsname = readName(packet, start);
      const hostmaster = readName(packet, nsname.next);
      const at = hostmaster.next;
      return {
        nsname: nsname.name,
        hostmaster: hostmaster.name,
        serial: view.getUint32(at),
        refresh: view.getUint32(at + 4),
        retry: view.getUint32(at + 8),
        expire: view.getUint32(at + 12),
        minttl: view.getUint32(at + 16),
      };
    }
  }
}

// Reads a possibly compressed name; `next` is the offset after it in place.
function readName(packet: Uint8Array, offset: number): { name: string; next: number } {
  const labels: string[] = [];
  let at = offset;
  let next = -1;
  for (let jumps = 0; ; ) {
    const length = packet[at];
    if (length === undefined) throw new Error("name runs past the packet");
    if ((length & 0xc0) === 0xc0) {
      if (++jumps > 64) throw new Error("compression loop");
      if (next < 0) next = at + 2;
      at = ((length & 0x3f) << 8) | packet[at + 1];
      continue;
    }
    if (length === 0) {
      return { name: labels.join("."), next: next < 0 ? at + 1 : next };
    }
    labels.push(new TextDecoder().decode(packet.subarray(at + 1, at + 1 + length)));
    at += 1 + length;
  }
}

// RFC 5952 text form, as inet_ntop writes it: the longest run of two or more zero groups becomes "::".
function formatIpv6(bytes: Uint8Array): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  if (bestLength < 2) return groups.join(":");
  return `${groups.slice(0, bestStart).join(":")}::${groups.slice(bestStart + bestLength).join(":")}`;
}

const SYSCALLS: Record<string, string> = {
  A: "queryA",
  AAAA: "queryAaaa",
  CNAME: "queryCname",
  MX: "queryMx",
  NS: "queryNs",
  PTR: "queryPtr",
  SOA: "querySoa",
  SRV: "querySrv",
  TXT: "queryTxt",
};

function dnsError(code: string, type: string, name: string): Error {
  const syscall = SYSCALLS[type] ?? "query";
  return Object.assign(new Error(`${syscall} ${code} ${name}`), { code, syscall, hostname: name });
}
