import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** A frame of a CPU profile and its self time, the share of every sample it was on top in. */
export interface HotFrame {
  readonly frame: string;
  readonly selfMs: number;
  readonly share: number;
}

/**
 * The frames with the most self time in a `--cpu-prof` profile, merged by function and location,
 * with paths shortened to the project or package they belong to.
 */
export function topFrames(path: string, count = 15): HotFrame[] {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as {
    nodes: ProfileNode[];
    startTime: number;
    endTime: number;
  };
  const totalHits = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
  const msPerHit = (profile.endTime - profile.startTime) / 1000 / Math.max(1, totalHits);
  const hits = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ''}`;
    hits.set(key, (hits.get(key) ?? 0) + (node.hitCount ?? 0));
  }
  return [...hits]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, n]) => ({ frame, selfMs: n * msPerHit, share: n / totalHits }));
}

function shortUrl(url: string): string {
  const packages = url.lastIndexOf('node_modules/');
  if (packages !== -1) return url.slice(packages + 'node_modules/'.length);
  const project = url.indexOf('/src/');
  return project !== -1 ? url.slice(project + 1) : url.replace(/^file:\/\//, '');
}
