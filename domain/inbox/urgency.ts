/**
 * How urgent an item of a person's inbox is: by the time left before it leaves them and by its risk. Pure:
 * the time left is an argument.
 */
import type { RiskLevel } from '../routing/risk';

export const INBOX_ITEM_KINDS = ['routing', 'approval', 'escalation'] as const;
export type InboxItemKind = (typeof INBOX_ITEM_KINDS)[number];

export const INBOX_URGENCIES = ['overdue', 'urgent', 'due_today', 'later'] as const;
export type InboxUrgency = (typeof INBOX_URGENCIES)[number];

const HOUR_SECONDS = 3600;
const DAY_SECONDS = 24 * HOUR_SECONDS;

/** overdue past the deadline; urgent within the hour or at critical risk; due_today within a day; later otherwise. */
export function urgencyOf(secondsLeft: number | null, risk: RiskLevel): InboxUrgency {
  if (secondsLeft !== null && secondsLeft <= 0) return 'overdue';
  if (risk === 'critical' || (secondsLeft !== null && secondsLeft < HOUR_SECONDS)) return 'urgent';
  if (secondsLeft !== null && secondsLeft < DAY_SECONDS) return 'due_today';
  return 'later';
}

const URGENCY_ORDER: Record<InboxUrgency, number> = { overdue: 0, urgent: 1, due_today: 2, later: 3 };

/** Most urgent first, then the least time left, then the oldest. */
export function byUrgency(
  a: { urgency: InboxUrgency; seconds_left: number | null; created_at: string },
  b: { urgency: InboxUrgency; seconds_left: number | null; created_at: string },
): number {
  return (
    URGENCY_ORDER[a.urgency] - URGENCY_ORDER[b.urgency] ||
    (a.seconds_left ?? Infinity) - (b.seconds_left ?? Infinity) ||
    a.created_at.localeCompare(b.created_at)
  );
}
