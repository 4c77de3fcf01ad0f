// Small shape helpers shared by the classic and the modern spam features.

/** A count as its log2 bucket, so a feature says "a few" or "many" rather than an exact number. */
export function bucket(n: number): number {
  return n <= 0 ? 0 : Math.ceil(Math.log2(n + 1));
}

// The part of a host name an owner registers: "mail.example.co.uk" -> "example.co.uk". A
// heuristic (no public suffix list), good enough to group a sender's hosts together.
export function registrable(host: string): string {
  const labels = host.toLowerCase().replace(/\.$/, "").split(".").filter(Boolean);
  if (labels.length <= 2) return labels.join(".");
  const secondLevel = labels[labels.length - 2]!;
  const ccTld = labels[labels.length - 1]!.length === 2;
  const keep = ccTld && /^(co|com|net|org|ac|gov|edu|ne|or|go)$/.test(secondLevel) ? 3 : 2;
  return labels.slice(-keep).join(".");
}
