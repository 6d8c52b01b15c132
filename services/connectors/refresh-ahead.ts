import type { RefreshPass } from '../../contracts/refresh-connector-tokens';
import { installationsDueForRefresh } from '../../db/installations-refresh';
import { accessTokenFor, type TokenDeps } from './tokens';

/** The most installations one pass refreshes; the rest wait for the next pass, soonest expiry first. */
const PASS_LIMIT = 500;

/**
 * One background pass: each active installation whose token expires within the window is refreshed through
 * accessTokenFor, the single-flight path (row lock, re-read, rotation stored before use). A sibling that
 * refreshed meanwhile is seen under the lock and nothing is spent twice. `beat` is called between
 * installations so a long pass shows it is alive.
 */
export async function refreshDueInstallations(
  deps: TokenDeps,
  aheadSeconds: number,
  beat: () => void = () => undefined,
): Promise<RefreshPass> {
  const due = await installationsDueForRefresh(deps.db, aheadSeconds, PASS_LIMIT);
  const pass: RefreshPass = { due: due.length, refreshed: 0, needs_reauth: 0, failed: 0 };
  const settings = { ...deps.settings, refreshAheadSeconds: aheadSeconds };
  for (const installation of due) {
    beat();
    const access = await accessTokenFor(
      { ...deps, settings },
      installation.organization_id,
      installation.installation_id,
    );
    if (access.ok) pass.refreshed += access.refreshed ? 1 : 0;
    else if (access.code === 'needs_reauth') pass.needs_reauth += 1;
    else pass.failed += 1;
  }
  return pass;
}
