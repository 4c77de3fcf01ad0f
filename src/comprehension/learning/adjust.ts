// An account's corrections applied on top of the global spam score. The account's statistics are
// counts per token (how many of its "spam" and "not spam" corrections held the token) and the
// number of each; a token's spam probability is Robinson's f(w) (strength 1, prior 0.5), and the
// decisive tokens of the message combine by Fisher's chi-square method into the account's own
// score, as SpamAssassin's Bayes and SpamBayes do. Unlike them it must speak after a dozen
// corrections with no ham corrections at all, so its weight is the share of the message's tokens
// that carry evidence: a message of the kind corrected shares most of its words with it, other
// mail only a few. The final score moves from the global one toward the account's by that weight:
//   w = min(1, coverage / FULL_COVERAGE);  final = (1 − w) × global + w × account
// An account without corrections (or a message sharing nothing with them) keeps the global score
// exactly; mail most of whose words were corrected as spam takes the account's verdict whatever
// the global model thought (the people of the account know what they do not want), and "not
// spam" corrections pull similar mail down the same way. A linear blend, not log-odds: the global
// logistic-regression score is trained with dropout and class re-weighting and its threshold
// chosen for few false alarms, so it is not a calibrated probability either, and ordinary mail
// sits near zero.

export type AccountStats = {
  spamMessages: number;
  hamMessages: number;
  /** token hash → counts, for the message's tokens only */
  tokens: Map<number, { spam: number; ham: number }>;
};

export type AccountAdjustment = {
  score: number;
  global: number;
  account: number | null;
  coverage: number;
  evidence: number;
  corrections: { spam: number; ham: number };
};

const MIN_STRENGTH = 0.1;
const MAX_DECISIVE = 60;
const FULL_COVERAGE = 0.6;

const clampP = (p: number) => Math.min(1 - 1e-6, Math.max(1e-6, p));

/** P(chi2 with 2v degrees of freedom ≥ x2), the series SpamBayes uses. */
function chi2Q(x2: number, v: number): number {
  const m = x2 / 2;
  let sum = Math.exp(-m);
  let term = sum;
  for (let i = 1; i < v / 2; i++) {
    term *= m / i;
    sum += term;
  }
  return Math.min(sum, 1);
}

/** The account's own score of these tokens: 0..1, null without evidence. */
export function accountScore(stats: AccountStats, tokens: number[]): { score: number | null; coverage: number; evidence: number } {
  const ns = Math.max(stats.spamMessages, 1);
  const nh = Math.max(stats.hamMessages, 1);
  const decisive: number[] = [];
  for (const token of tokens) {
    const counts = stats.tokens.get(token);
    if (!counts || counts.spam + counts.ham === 0) continue;
    const rs = counts.spam / ns;
    const rh = counts.ham / nh;
    const p = rs / (rs + rh);
    const n = counts.spam + counts.ham;
    const f = (0.5 + n * p) / (1 + n);
    if (Math.abs(f - 0.5) >= MIN_STRENGTH) decisive.push(f);
  }
  const coverage = tokens.length === 0 ? 0 : decisive.length / tokens.length;
  if (decisive.length === 0) return { score: null, coverage: 0, evidence: 0 };
  decisive.sort((a, b) => Math.abs(b - 0.5) - Math.abs(a - 0.5));
  const used = decisive.slice(0, MAX_DECISIVE);
  let lnSpam = 0;
  let lnHam = 0;
  for (const f of used) {
    lnSpam += Math.log(clampP(1 - f));
    lnHam += Math.log(clampP(f));
  }
  const s = 1 - chi2Q(-2 * lnSpam, used.length * 2);
  const h = 1 - chi2Q(-2 * lnHam, used.length * 2);
  return { score: (1 + s - h) / 2, coverage, evidence: decisive.length };
}

/** The global score moved by the account's evidence; unchanged when the account has none. */
export function adjustForAccount(stats: AccountStats | null, tokens: number[], globalScore: number): AccountAdjustment {
  const corrections = { spam: stats?.spamMessages ?? 0, ham: stats?.hamMessages ?? 0 };
  if (!stats || corrections.spam + corrections.ham === 0)
    return { score: globalScore, global: globalScore, account: null, coverage: 0, evidence: 0, corrections };
  const own = accountScore(stats, tokens);
  if (own.score === null) return { score: globalScore, global: globalScore, account: null, coverage: 0, evidence: 0, corrections };
  const weight = Math.min(1, own.coverage / FULL_COVERAGE);
  const score = (1 - weight) * globalScore + weight * own.score;
  const round = (x: number) => Math.round(x * 10000) / 10000;
  return {
    score: round(score),
    global: globalScore,
    account: round(own.score),
    coverage: round(own.coverage),
    evidence: own.evidence,
    corrections,
  };
}
