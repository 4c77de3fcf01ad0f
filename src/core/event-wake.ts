// What a waiter needs from the process's event hub (src/core/events/hub.ts's EventHub is one): to
// be woken when an event of its account is committed by any process, and told when to give up
// because the process drains. Its own file, so Services can name it without importing a use case.

export type WakeMember = { accountId: string; wake(): void; drain(): void };
export type WakeSource = { join(member: WakeMember): boolean; leave(member: WakeMember): void; ready(): Promise<void> };
