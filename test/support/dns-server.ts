// A real authoritative DNS server on loopback for tests: the code under test
// resolves through node:dns exactly as in production, only the server differs.
import dgram from "node:dgram";
import dns2 from "dns2";

const { Packet } = dns2;
const NXDOMAIN = 3; // RFC 1035 §4.1.1 RCODE (missing from dns2's typings)

export type ZoneEntry = {
  A?: string[];
  AAAA?: string[];
  MX?: { exchange: string; priority: number }[];
  // Each record is its list of character-strings; a string longer than 255
  // bytes is split on the wire, as a DNS provider does with a long DKIM key.
  TXT?: string[][];
};
export type Zone = Record<string, ZoneEntry>;
export type Query = { name: string; type: string; transport: "udp" | "tcp" };

export type DnsServer = {
  address: string; // "127.0.0.1:PORT", UDP and TCP on the same port
  zone: Zone; // edits take effect on the next query
  queries: Query[]; // every question received, in order
  close(): Promise<void>;
};

const TYPE_NAMES = new Map<number, string>(Object.entries(Packet.TYPE).map(([name, code]) => [code as number, name]));

function normalize(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

function findEntry(zone: Zone, name: string): ZoneEntry | undefined {
  const wanted = normalize(name);
  for (const [key, entry] of Object.entries(zone)) {
    if (normalize(key) === wanted) return entry;
  }
  return undefined;
}

function splitCharacterStrings(text: string): Buffer[] {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length === 0) return [bytes];
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 255) parts.push(bytes.subarray(at, at + 255));
  return parts;
}

function answersFor(entry: ZoneEntry, name: string, type: string): any[] {
  const base = { name, class: Packet.CLASS.IN, ttl: 60 };
  switch (type) {
    case "A":
      return (entry.A ?? []).map((address) => ({ ...base, type: Packet.TYPE.A, address }));
    case "AAAA":
      return (entry.AAAA ?? []).map((address) => ({ ...base, type: Packet.TYPE.AAAA, address }));
    case "MX":
      return (entry.MX ?? []).map((mx) => ({ ...base, type: Packet.TYPE.MX, ...mx }));
    case "TXT":
      return (entry.TXT ?? []).map((chunks) => ({
        ...base,
        type: Packet.TYPE.TXT,
        data: chunks.flatMap(splitCharacterStrings),
      }));
    default:
      return [];
  }
}

export async function startDnsServer(zone: Zone = {}): Promise<DnsServer> {
  const queries: Query[] = [];
  const handle = (transport: Query["transport"]) => (request: any, send: (response: any) => void) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const [question] = request.questions;
    const type = TYPE_NAMES.get(question?.type) ?? String(question?.type);
    queries.push({ name: question?.name ?? "", type, transport });
    const entry = question ? findEntry(zone, question.name) : undefined;
    if (!entry) {
      response.header.rcode = NXDOMAIN;
    } else {
      response.answers.push(...answersFor(entry, question.name, type));
    }
    send(response);
  };

  // UDP takes an ephemeral port; TCP (for truncated answers such as long
  // DKIM keys) must share it, so retry if that port is taken for TCP.
  for (let attempt = 0; ; attempt++) {
    const udp = dns2.createUDPServer(handle("udp"));
    await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", () => resolve()));
    const port = udp.address().port;
    const tcp = dns2.createTCPServer(handle("tcp"));
    const sockets = new Set<import("node:net").Socket>();
    tcp.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    const listening = await new Promise<boolean>((resolve) => {
      tcp.once("error", () => resolve(false));
      tcp.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (!listening) {
      udp.close();
      if (attempt < 10) continue;
      throw new Error("could not bind TCP and UDP on one port");
    }
    const close = async () => {
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => {
          tcp.close(() => resolve());
          // Idle client connections would otherwise hold close() open.
          for (const socket of sockets) socket.destroy();
        }),
      ]);
    };
    return { address: `127.0.0.1:${port}`, zone, queries, close };
  }
}

// Reads queries and never answers: what a dead or filtered DNS server looks like.
export async function startSilentDnsServer(): Promise<{
  address: string;
  received: () => number;
  close(): Promise<void>;
}> {
  const socket = dgram.createSocket("udp4");
  let count = 0;
  socket.on("message", () => {
    count++;
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    received: () => count,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
