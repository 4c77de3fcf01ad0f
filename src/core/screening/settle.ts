// A promise's outcome held as a value, to decide later whether its failure matters: work started
// side by side whose result may turn out not to be needed (screening asks the spam scanner while
// clamd decides whether the mail is a virus, and a virus's spam verdict is never used).

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function settle<T>(work: Promise<T>): Promise<Settled<T>> {
  return work.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** The value, or the failure thrown now. */
export function unsettle<T>(outcome: Settled<T>): T {
  if (outcome.ok) return outcome.value;
  throw outcome.error;
}
