import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';

const ROOT = join(__dirname, '../..');
const AXE = readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * axe-core's violations on the page as it stands (WCAG 2.x A and AA, and best practices). Evaluated through
 * the DevTools protocol, which the page's Content-Security-Policy does not govern, so the page needs no change.
 */
export async function axeViolations(
  page: Page,
): Promise<Array<{ id: string; impact: string | null; help: string; targets: string[] }>> {
  await page.evaluate(AXE);
  const violations = await page.evaluate<AxeViolation[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((results) => results.violations)`,
  );
  return violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' ')),
  }));
}

/**
 * A screenshot the docs show, taken by the test's own browser on every run: written over docs/images/<name>.png
 * with HANDOFF_UPDATE_SCREENSHOTS=1, else beside the run's other output (so a test run leaves the tree clean).
 */
export async function docsScreenshot(page: Page, name: string): Promise<string> {
  const folder =
    process.env.HANDOFF_UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs/images') : join(tmpdir(), 'handoff-screenshots');
  const path = join(folder, `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** `npm run verify -- bundle.json` on a decision-signature bundle: its output and exit status. */
export function verifyBundle(bundle: unknown): { status: number | null; stdout: string; stderr: string } {
  const file = join(mkdtempSync(join(tmpdir(), 'inbox-decision-')), 'bundle.json');
  writeFileSync(file, JSON.stringify(bundle));
  const run = spawnSync('npx', ['tsx', 'scripts/verify.ts', file], { encoding: 'utf8', cwd: ROOT });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
