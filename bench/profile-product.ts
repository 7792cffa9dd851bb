import { copyFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProduct } from './product-run.js';
import { type HotFrame, topFrames } from './profile-top.js';

/** Where the profile is kept for a closer look (Chrome DevTools, speedscope): outside the work tree. */
export const keptProfile = join(tmpdir(), 'tms-sync-backfill.cpuprofile');

/** One product backfill into a fresh SQLite file under `--cpu-prof`, and its hottest frames. */
export async function profileProduct(simUrl: string, workDir: string): Promise<HotFrame[]> {
  const profileDir = join(workDir, 'profile');
  await runProduct({
    simUrl,
    storeUrl: `sqlite:${join(workDir, 'profiled.sqlite')}`,
    nodeFlags: ['--cpu-prof', '--cpu-prof-dir', profileDir],
  });
  // The main thread's profile sorts first; tsx's loader thread writes the second.
  const [file] = readdirSync(profileDir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort();
  if (!file) throw new Error(`no CPU profile written to ${profileDir}`);
  copyFileSync(join(profileDir, file), keptProfile);
  return topFrames(keptProfile, 20);
}
