// Which address a request came from, for the dashboard's sign-in throttle: the TCP peer, or, when
// the peer is a trusted reverse proxy (TRUSTED_PROXIES), what X-Forwarded-For says.
import { type Address, type AddressRange, inRange, parseAddress, parseRange } from "../ip-address.ts";

// How to learn each request's TCP peer, recorded by the server (the only code that knows it)
// before the app sees the request. Kept beside the Request rather than in a header, so nothing a
// client sends can set it, however the app is mounted; a request that arrives without one has no
// address. A function, so only the requests that ask (sign-ins) pay for the look-up.
export type PeerOf = () => string | null;
const peers = new WeakMap<Request, PeerOf>();

/** Serves one request whose TCP peer peerOf tells (Bun's requestIP, Deno's remoteAddr). */
export function handleFromPeer(app: { handle(request: Request): Promise<Response> }, request: Request, peerOf: PeerOf): Promise<Response> {
  peers.set(request, peerOf);
  return app.handle(request);
}

export type ClientAddressOf = (request: Request) => string | null;

/** "[::1]:443" and "10.0.0.1:80" as some proxies write them; a bare address as it is. */
function hopAddress(hop: string): Address | null {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return parseAddress(bracketed?.[1] ?? withPort?.[1] ?? hop);
}

/**
 * The client's address, canonical: the TCP peer, unless the peer is a trusted proxy. Then
 * X-Forwarded-For is read from the right, each hop having been appended by the hop after it, and
 * the first address that is not a trusted proxy is the client: anything left of it is whatever
 * the client chose to send. A hop that is not an address stops the walk at the last one known.
 * trustedProxies are canonical ranges as config.ts writes them.
 */
export function makeClientAddressOf(trustedProxies: string[]): ClientAddressOf {
  const ranges = trustedProxies
    .map((text) => parseRange(text))
    .filter((range): range is AddressRange => typeof range === "object" && range !== null);
  if (ranges.length !== trustedProxies.length) throw new Error(`not canonical ranges: ${trustedProxies.join(", ")}`);
  const trusted = (address: Address) => ranges.some((range) => inRange(address, range));
  return (request) => {
    const peer = peers.get(request)?.() ?? null;
    let client = peer === null ? null : parseAddress(peer);
    if (!client) return null;
    if (!trusted(client)) return client.toString();
    const hops = (request.headers.get("x-forwarded-for") ?? "").split(",").map((hop) => hop.trim());
    for (let i = hops.length - 1; i >= 0 && trusted(client); i--) {
      const hop = hopAddress(hops[i]!);
      if (!hop) break;
      client = hop;
    }
    return client.toString();
  };
}
