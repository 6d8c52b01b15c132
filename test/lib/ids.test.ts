import fc from 'fast-check';
import { idempotencyDigest, resourceId, updateIdFor } from '../../lib/ids';
import { agentRoutingId } from '../../services/routing/agent-operations';

const UUID_SHAPED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// The values below are what the routing ids, update ids and step ids were before they came from lib/ids.ts:
// a retry with the same key must still reach what the first request made.
describe('ids derived from a caller and their Idempotency-Key', () => {
  it('gives a routing the id it has always had for the same caller and key', () => {
    expect(resourceId('rt', 'pat:alice', 'key-1')).toBe('rt_6d8140c1-dfe2-9821-2ba4-7794916720bd');
  });

  it('gives an agent’s task the routing it has always had', () => {
    expect(agentRoutingId('agent-7', 'task-42')).toBe('rt_6d413e30-7443-765b-92a4-ebbd9494e450');
  });

  it('names an Update after the caller and key, and leaves it to Temporal without a key', () => {
    expect(updateIdFor('pat:alice', 'key-1')).toBe('upd_6d8140c1dfe298212ba47794916720bd');
    expect(updateIdFor('pat:alice', undefined)).toBeUndefined();
  });

  it('digests the caller and key as the agent’s logged steps always have', () => {
    expect(idempotencyDigest('agent:agent-7', 'step-key')).toBe('f88bb45c17758b72130d465dd5331a85');
  });

  it('derives the same UUID-shaped id for the same caller and key, and another for another key', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (principal, key, other) => {
        const id = resourceId('rt', principal, key);
        expect(id.slice(3)).toMatch(UUID_SHAPED);
        expect(resourceId('rt', principal, key)).toBe(id);
        if (other !== key) expect(resourceId('rt', principal, other)).not.toBe(id);
      }),
    );
  });

  it('makes a fresh random id without a key', () => {
    const first = resourceId('rt', 'pat:alice');
    expect(first.slice(3)).toMatch(UUID_SHAPED);
    expect(resourceId('rt', 'pat:alice')).not.toBe(first);
  });
});
