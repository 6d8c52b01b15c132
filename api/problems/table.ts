/** Each code's status, title and remediation steps; an area's table lives in api/problems/. */
export type ProblemTable = Record<
  string,
  { status: number; title: string; remediation: readonly [string, ...string[]] }
>;
