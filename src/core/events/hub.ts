// Fan-out of new events to this process's open streams. One LISTEN connection per process (not
// per client) hears the positions committed by any process; each open feed is woken and reads
// the log itself, so a notification is only a hint: a feed that missed one (the LISTEN connection
// dropped and came back) is woken again on reconnect and catches up from the log.

import { errorFields } from "../../log.ts";
import type { Services } from "../services.ts";
import { EVENT_CHANNEL } from "./log.ts";

export type HubMember = {
  accountId: string;
  wake(): void;
  /** ends the connection for shutdown: the client reconnects elsewhere and resumes */
  drain(): void;
};

export type EventHub = {
  /** false once the hub drains: the caller answers 503 */
  join(member: HubMember): boolean;
  leave(member: HubMember): void;
  size(): number;
  /** resolves once listening; a feed that reads the log after this cannot miss a later event */
  ready(): Promise<void>;
  drain(): Promise<void>;
};

const hubs = new WeakMap<Services, EventHub>();

/** The process's hub for these services, made (not yet listening) on first use. */
export function eventHubFor(svc: Services): EventHub {
  let hub = hubs.get(svc);
  if (!hub) {
    hub = makeEventHub(svc);
    hubs.set(svc, hub);
  }
  return hub;
}

/** Drains the hub if one was made: for shutdown, before the HTTP server waits for requests. */
export async function drainEventHub(svc: Services): Promise<void> {
  await hubs.get(svc)?.drain();
}

function makeEventHub(svc: Services): EventHub {
  const byAccount = new Map<string, Set<HubMember>>();
  let draining = false;
  let listening: Promise<{ unlisten(): Promise<void> }> | null = null;
  let count = 0;

  const wakeAll = () => {
    for (const members of byAccount.values()) for (const member of members) member.wake();
  };
  const listen = () => {
    listening ??= (svc.listenSql ?? svc.sql).listen(
      EVENT_CHANNEL,
      (text) => {
        let accountId: unknown;
        try {
          accountId = (JSON.parse(text) as { a?: unknown }).a;
        } catch {
          return;
        }
        if (typeof accountId !== "string") return;
        for (const member of byAccount.get(accountId) ?? []) member.wake();
      },
      // Called on every (re)connect: whatever was notified while it was down is in the log.
      wakeAll,
    );
    listening.catch((error) => {
      svc.log.error("events.listen_failed", errorFields(error));
      listening = null;
    });
    return listening;
  };

  return {
    join(member) {
      if (draining) return false;
      void listen();
      let members = byAccount.get(member.accountId);
      if (!members) byAccount.set(member.accountId, (members = new Set()));
      if (!members.has(member)) count++;
      members.add(member);
      return true;
    },
    leave(member) {
      const members = byAccount.get(member.accountId);
      if (!members?.delete(member)) return;
      count--;
      if (members.size === 0) byAccount.delete(member.accountId);
    },
    size: () => count,
    async ready() {
      await listen();
    },
    async drain() {
      draining = true;
      for (const members of [...byAccount.values()]) for (const member of [...members]) member.drain();
      byAccount.clear();
      count = 0;
      const current = listening;
      listening = null;
      if (current) await current.then((request) => request.unlisten()).catch(() => {});
    },
  };
}
