// A per-process cache of API-key look-ups (a look-up on every request is a large share of a cheap
// read's cost), whose invalidation keeps revocation immediate on every process:
//  - each process LISTENs on `api_key_cache` over a connection of its own; triggers on api_keys and
//    accounts (sql/0017) notify at the COMMIT of any change, and every process then drops its
//    whole cache. The window is the notification's delivery over loopback, not a TTL.
//  - while that connection is down (not yet up, dropped, reconnecting) the cache is empty and
//    bypassed: every request reads the database, as without a cache. A notification missed while
//    down therefore never matters; the cache fills again only once LISTEN is back.
//  - a look-up that started before an invalidation is not stored after it (a generation count),
//    so a read racing a revocation cannot put the revoked key back.
// Only keys that were found are cached: a new key works at once, and bad secrets fill nothing.
import postgres from "postgres";
import type { Sql } from "../../db.ts";
import { sha256HexNow } from "../../secrets.ts";
import type { Principal } from "../principal.ts";
import { onLocalKeyChange } from "./key-cache-local.ts";
import { principalForSecret } from "./keys.ts";

const CHANNEL = "api_key_cache";
const TTL_MS = 60_000; // a bound even if a notification were ever lost while LISTEN looked up
const MAX_ENTRIES = 10_000;
const RELISTEN_MS = 1_000;

type State = {
  listening: boolean;
  generation: number;
  entries: Map<string, { principal: Principal; expires: number }>;
  listener: Sql;
  forget: () => void;
};

const states = new WeakMap<Sql, State>();
// A pool behind a transaction-pooling PgBouncer cannot LISTEN: its cache listens through the
// direct pool (DATABASE_DIRECT_URL) registered here by makeServices.
const listenSources = new WeakMap<Sql, Sql>();

/** Makes the cache of `sql` LISTEN on a connection made like `direct`'s. */
export function listenThrough(sql: Sql, direct: Sql): void {
  listenSources.set(sql, direct);
}

function invalidate(state: State): void {
  state.generation++;
  state.entries.clear();
}

function start(sql: Sql): State {
  const o = (listenSources.get(sql) ?? sql).options as unknown as {
    host: string[];
    port: number[];
    database: string;
    user: string;
    pass: unknown;
    ssl: unknown;
    path?: string | false;
  };
  const state: State = { listening: false, generation: 0, entries: new Map(), listener: null as never, forget: () => {} };
  state.forget = onLocalKeyChange(() => invalidate(state));
  state.listener = postgres({
    host: o.host,
    port: o.port,
    path: o.path || undefined,
    database: o.database,
    user: o.user,
    pass: o.pass as string,
    ssl: o.ssl as boolean,
    max: 1,
    idle_timeout: 0,
    max_lifetime: 0,
    fetch_types: false,
    onnotice: () => {},
    onnotify: (channel: string) => {
      if (channel === CHANNEL) invalidate(state);
    },
    // The connection is gone: whatever was notified meanwhile is lost, so stop trusting the cache.
    onclose: () => {
      state.listening = false;
      invalidate(state);
      setTimeout(() => listen(state), RELISTEN_MS).unref?.();
    },
  } as unknown as postgres.Options<{}>) as unknown as Sql;
  void listen(state);
  return state;
}

async function listen(state: State): Promise<void> {
  if (state.listening) return;
  try {
    await state.listener.unsafe(`listen ${CHANNEL}`);
    invalidate(state);
    state.listening = true;
  } catch {
    // onclose schedules the next attempt when a connection was made; otherwise try again here.
    if (!state.listening) setTimeout(() => listen(state), RELISTEN_MS).unref?.();
  }
}

function stateFor(sql: Sql): State {
  let state = states.get(sql);
  if (!state) states.set(sql, (state = start(sql)));
  return state;
}

/** principalForSecret through the cache; see the top of this file for when it is bypassed. */
export async function cachedPrincipalForSecret(sql: Sql, secret: string): Promise<Principal | null> {
  const state = stateFor(sql);
  if (!state.listening) return principalForSecret(sql, secret);
  const id = sha256HexNow(secret);
  const hit = state.entries.get(id);
  if (hit && hit.expires > Date.now()) return { ...hit.principal };
  const generation = state.generation;
  const principal = await principalForSecret(sql, secret);
  if (principal && state.listening && state.generation === generation) {
    if (state.entries.size >= MAX_ENTRIES) state.entries.clear();
    state.entries.set(id, { principal: { ...principal }, expires: Date.now() + TTL_MS });
  }
  return principal;
}

/** For tests and health checks: whether the cache is in use, and how many keys it holds. */
export function keyCacheStatus(sql: Sql): { listening: boolean; entries: number } {
  const state = states.get(sql);
  return { listening: state?.listening ?? false, entries: state?.entries.size ?? 0 };
}

/** Ends the listening connection of a pool (tests that close their pool; shutdown). */
export async function stopKeyCache(sql: Sql): Promise<void> {
  const state = states.get(sql);
  if (!state) return;
  states.delete(sql);
  state.forget();
  state.listening = false;
  invalidate(state);
  await state.listener.end({ timeout: 1 });
}
