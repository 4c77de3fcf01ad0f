// One worker thread per process for one kind of job (argon2id password hashes, DKIM's RSA
// signatures), started on first use. Each job carries an id and its reply the same id. While it
// has work the thread holds the process open; idle, it lets go (unref where the runtime has it,
// else it is ended and started again later). A thread that dies fails what it held, and the next
// job starts a new one.

type Waiting<Reply> = { resolve(reply: Reply): void; reject(error: Error): void };
// ref/unref exist on Bun's (and Node's) Worker, not on Deno's.
type Holdable = { ref?(): void; unref?(): void };
// A job as its caller writes it: the id is given here (distributes over a union of job kinds).
type WithoutId<Job> = Job extends unknown ? Omit<Job, "id"> : never;

export type JobThread<Job extends { id: number }, Reply extends { id: number }> = {
  /** The running thread, started if there is none. */
  current(): Worker;
  /** Whether `w` is still the running thread (a job given to a dead one is lost). */
  isCurrent(w: Worker): boolean;
  /** Runs `job` on `w` (the running thread by default); its reply, or an error if the thread dies. */
  ask(job: WithoutId<Job>, w?: Worker): Promise<Reply>;
};

/** `url`: the worker module; `what`: how errors name the thread. */
export function jobThread<Job extends { id: number }, Reply extends { id: number }>(url: URL, what: string): JobThread<Job, Reply> {
  let worker: Worker | null = null;
  const waiting = new Map<number, Waiting<Reply>>();
  let nextJob = 0;

  const idle = (w: Worker) => {
    const holdable = w as unknown as Holdable;
    if (typeof holdable.unref === "function") return holdable.unref();
    if (worker === w) worker = null;
    w.terminate();
  };

  const current = (): Worker => {
    if (worker) return worker;
    const started = new Worker(url.href, { type: "module" });
    started.onmessage = ({ data }: MessageEvent<Reply>) => {
      const job = waiting.get(data.id);
      if (!job) return;
      waiting.delete(data.id);
      job.resolve(data);
      if (waiting.size === 0) idle(started);
    };
    started.onerror = (event: ErrorEvent) => {
      event.preventDefault?.();
      if (worker === started) worker = null;
      started.terminate();
      for (const job of waiting.values()) job.reject(new Error(`${what} failed: ${event.message}`));
      waiting.clear();
    };
    worker = started;
    return started;
  };

  const ask = (job: WithoutId<Job>, w: Worker = current()): Promise<Reply> => {
    (w as unknown as Holdable).ref?.();
    const id = ++nextJob;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      w.postMessage({ ...job, id });
    });
  };

  return { current, isCurrent: (w) => worker === w, ask };
}
