// Where a process spent stretches of time without returning to its event loop, read from the CPU
// profile Bun writes with `--cpu-prof` (Chrome's .cpuprofile: a sample every millisecond or so
// while JavaScript or a native call made from it runs, none while idle). For each window given
// (a stall the service logged) it adds up the samples inside it by the innermost frame of our own
// code and the frame that was running, so the list names the function that held the loop.
import { readFileSync } from "node:fs";

type Frame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: Frame; children?: number[] };
type Profile = { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] };

export type Window = { fromMs: number; toMs: number };
export type Culprit = { where: string; ms: number };

const ours = (url: string) => /\/(src|smtp|worker)\//.test(url) && !url.includes("/node_modules/");
const place = (frame: Frame) =>
  `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^file:\/\/.*?\/(src|smtp|worker|node_modules)\//, "$1/")}:${frame.lineNumber + 1}`;

/** For each window (epoch ms), the heaviest places inside it: "running ← innermost of ours". */
export function culprits(profilePath: string, windows: Window[], top = 4): Culprit[][] {
  const profile = JSON.parse(readFileSync(profilePath, "utf8")) as Profile;
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const label = new Map<number, string>();
  const labelOf = (id: number): string => {
    const known = label.get(id);
    if (known) return known;
    const leaf = byId.get(id)!.callFrame;
    let at: number | undefined = id;
    let mine: Frame | null = null;
    while (at !== undefined) {
      const frame = byId.get(at)!.callFrame;
      if (ours(frame.url)) {
        mine = frame;
        break;
      }
      at = parent.get(at);
    }
    const text = mine && mine !== leaf ? `${place(leaf)} ← ${place(mine)}` : place(leaf);
    label.set(id, text);
    return text;
  };
  const totals = windows.map(() => new Map<string, number>());
  let time = profile.startTime / 1000;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i]! / 1000;
    time += delta;
    // A sample stands for the time since the previous one, unless the process was idle in between.
    const weight = Math.min(delta, 5);
    windows.forEach((window, w) => {
      if (time >= window.fromMs && time <= window.toMs) {
        const key = labelOf(profile.samples[i]!);
        totals[w]!.set(key, (totals[w]!.get(key) ?? 0) + weight);
      }
    });
  }
  return totals.map((total) =>
    [...total.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([where, ms]) => ({ where, ms: Math.round(ms) })),
  );
}
