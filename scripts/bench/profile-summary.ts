/**
 * `npx tsx scripts/bench/profile-summary.ts <file.cpuprofile> [--per N] [--samples]`: where a service's CPU went,
 * from a V8 CPU profile written under HANDOFF_BENCH_CPU_PROFILE. Prints self time by package (a node_modules
 * package, a project folder, or Node's internals) and the functions with the most self and total time; with
 * `--per N`, every figure is also divided by N operations (milliseconds per operation). A sample is weighed by
 * the time since the one before it, which on a loaded machine includes time the process was not running; with
 * `--samples`, every sample weighs the same, the profile's median interval, so figures follow sample counts.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);

/** The package or project folder a script URL belongs to. */
function ownerOf(url: string, functionName: string): string {
  if (!url) return IDLE.has(functionName) ? functionName : '(native)';
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inModules?.[1]) return inModules[1];
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] ?? ''}`;
  const project = /\/(api|app|services|db|domain|lib|contracts|activities|workflows|workers)\//.exec(url);
  return project?.[1] ? `project:${project[1]}` : url;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url
    .replace(/^.*node_modules\//, '')
    .replace(/^file:\/\/.*?\/(?=(api|app|services|db|domain|lib)\/)/, '');
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function summarize(profile: CpuProfile, bySamples: boolean) {
  const interval = medianOf(profile.timeDeltas);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const byOwner = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
  profile.samples.forEach((id, index) => {
    const ms = (bySamples ? interval : (profile.timeDeltas[index] ?? 0)) / 1000;
    const node = byId.get(id)!;
    add(self, frameName(node), ms);
    add(byOwner, ownerOf(node.callFrame.url, node.callFrame.functionName), ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const name = frameName(byId.get(at)!);
      if (!seen.has(name)) add(total, name, ms);
      seen.add(name);
    }
  });
  return { self, total, byOwner };
}

function print(title: string, map: Map<string, number>, rows: number, per: number) {
  process.stdout.write(`\n${title}\n`);
  const busy = [...map.entries()].filter(([key]) => !IDLE.has(key) && !IDLE.has(key.split(' ')[0] ?? ''));
  for (const [key, ms] of busy.sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    const perOperation = per > 0 ? `  ${(ms / per).toFixed(3)} ms/op` : '';
    process.stdout.write(`${ms.toFixed(0).padStart(8)} ms${perOperation}  ${key}\n`);
  }
}

function main() {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [--per N] [--samples]');
  const perAt = rest.indexOf('--per');
  const per = perAt >= 0 ? Number(rest[perAt + 1]) : 0;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const bySamples = rest.includes('--samples');
  const { self, total, byOwner } = summarize(profile, bySamples);
  const weighing = bySamples
    ? `${profile.samples.length} samples at the median interval, ${(medianOf(profile.timeDeltas) / 1000).toFixed(2)} ms`
    : 'samples weighed by their time deltas';
  process.stdout.write(`${weighing}\n`);
  const busyMs = [...byOwner.entries()].filter(([key]) => !IDLE.has(key)).reduce((sum, [, ms]) => sum + ms, 0);
  process.stdout.write(`busy ${busyMs.toFixed(0)} ms${per > 0 ? ` (${(busyMs / per).toFixed(2)} ms/op)` : ''}\n`);
  print('self time by package', byOwner, 25, per);
  print('self time by function', self, 30, per);
  print('total time by function', total, 40, per);
}

main();
