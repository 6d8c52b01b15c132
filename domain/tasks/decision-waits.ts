import type { ApprovalStatus } from '../approvals/requests';
import type { RoutingStatus } from '../routing/progress';

/** A routing is decided once nobody is left to answer it: resolved or decided autonomously (completed), or expired. */
export const routingDecided = (status: RoutingStatus): boolean => status === 'completed' || status === 'expired';

/** An approval is decided once it is no longer pending: answered, cancelled, expired or failed. */
export const approvalDecided = (status: ApprovalStatus): boolean => status !== 'pending';
