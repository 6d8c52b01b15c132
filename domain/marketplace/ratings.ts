/** Who may rate a connector, and the summary of its ratings; pure. */

/** A rating needs an installation of the caller's organization, of this connector, that is active (verified). */
export function ratingRefusal(
  installation: { organization_id: string; connector_id: string; status: string } | undefined,
  caller: { organization_id: string; connector_id: string },
): string | undefined {
  if (!installation || installation.organization_id !== caller.organization_id)
    return 'installation_id is not an installation of your organization';
  if (installation.connector_id !== caller.connector_id)
    return `installation_id is an installation of ${installation.connector_id}, not of ${caller.connector_id}`;
  if (installation.status !== 'active')
    return `The installation is ${installation.status}; only an active installation rates its connector`;
  return undefined;
}

export interface RatingSummary {
  average: number | null;
  count: number;
  distribution: Record<'1' | '2' | '3' | '4' | '5', number>;
}

/** The summary from the count of each star (average rounded to two decimals; null when unrated). */
export function ratingSummary(counts: ReadonlyMap<number, number>): RatingSummary {
  const distribution = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 };
  let count = 0;
  let total = 0;
  for (const stars of [1, 2, 3, 4, 5] as const) {
    const n = counts.get(stars) ?? 0;
    distribution[`${stars}`] = n;
    count += n;
    total += stars * n;
  }
  return { average: count === 0 ? null : Math.round((total / count) * 100) / 100, count, distribution };
}
