// The logistic regression both offline trainers of presence-token models fit (train-spam.ts for
// the spam classifier, train-injection-document.ts for the injection detector's document stage):
// AdaGrad over every example in a shuffled order each epoch, token dropout, L2 scaled by the
// number of examples, a seeded generator so a rerun writes the same model byte for byte.

export type FitOptions = { epochs: number; rate: number; l2: number; dropout: number; seed: number };

/** Each token seen in at least `minDocs` examples, in sorted order, and each example as indexes of them. */
export function indexTokens(examples: Iterable<string>[], minDocs: number): { index: Map<string, number>; rows: Int32Array[] } {
  const docs = new Map<string, number>();
  for (const tokens of examples) for (const t of tokens) docs.set(t, (docs.get(t) ?? 0) + 1);
  const index = new Map<string, number>();
  for (const [t, n] of [...docs].sort((a, b) => (a[0] < b[0] ? -1 : 1))) if (n >= minDocs) index.set(t, index.size);
  const rows = examples.map((tokens) => Int32Array.from([...tokens].map((t) => index.get(t) ?? -1).filter((i) => i >= 0)));
  return { index, rows };
}

/** Weights (one per index) and bias; `weightOf[k]` is how much example k counts. */
export function fitLogistic(
  rows: Int32Array[],
  positive: boolean[],
  weightOf: number[],
  size: number,
  o: FitOptions,
): { w: Float64Array; bias: number } {
  const w = new Float64Array(size);
  const g2 = new Float64Array(size).fill(1e-8);
  let bias = 0;
  let biasG2 = 1e-8;
  let seed = o.seed;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  const order = rows.map((_, i) => i);
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = next() % (i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (const k of order) {
      // Token dropout: each pass sees a random part of each example, so no handful of tokens can
      // carry a verdict alone.
      const row = o.dropout > 0 ? rows[k]!.filter(() => next() / 4294967296 >= o.dropout) : rows[k]!;
      let z = bias;
      for (const i of row) z += w[i]!;
      const p = 1 / (1 + Math.exp(-z));
      const g = (p - (positive[k] ? 1 : 0)) * weightOf[k]!;
      biasG2 += g * g;
      bias -= (o.rate * g) / Math.sqrt(biasG2);
      for (const i of row) {
        const gi = g + o.l2 * w[i]! * rows.length;
        g2[i]! += gi * gi;
        w[i]! -= (o.rate * gi) / Math.sqrt(g2[i]!);
      }
    }
  }
  return { w, bias };
}
