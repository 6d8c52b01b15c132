import { call } from './http';
import type { SignedInPerson } from './identity';
import type { Stack } from './stack';

/** Opens (as the stack's agent token) a payment approval addressed to `approver`; its id. */
export async function openApprovalFor(stack: Stack, approver: SignedInPerson): Promise<string> {
  const opened = await call(stack.baseUrl, 'POST', '/v1/approvals', {
    token: await stack.token(),
    json: {
      requester_passport_id: 'did:web:acme.example:agents:payer',
      approver_passport_id: approver.did,
      action_description: 'Pay invoice 42',
      request_data: { amount: 120 },
    },
  });
  expect(opened.status).toBe(201);
  return opened.body.id as string;
}
