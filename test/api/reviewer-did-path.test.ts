import { client, expectProblem } from '../support/http';
import { useStack } from '../support/stack';

/*
 * A reviewer's DID is a path segment, which Express decodes once: a DID whose own text holds `%3A` (a did:web
 * with a port, as Passport DIDs have) must be sent so that decoding gives it back, and a segment that would
 * decode into another DID is refused rather than stored under that other DID.
 */
let admin: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token(['orch:admin']));
});

const WITH_PORT = 'did:web:127.0.0.1%3A8443:reviewers:pat';
const put = (segment: string, display_name = 'Pat') =>
  admin('PUT', `/v1/orch/reviewers/${segment}`, { json: { display_name, capabilities: { did_paths: 0.9 } } });
const stored = async () =>
  (
    (await admin('GET', '/v1/orch/reviewers?capability=did_paths&limit=100')).body.data as Array<{
      did: string;
      display_name: string;
    }>
  ).map((r) => [r.did, r.display_name]);

describe('PUT /v1/orch/reviewers/{did}', () => {
  it('refuses a DID whose own %3A is sent as it is, which would decode into another DID, and stores nothing', async () => {
    const reply = await put(WITH_PORT);
    expectProblem(reply, 400, 'did_encoding_ambiguous');
    expect(reply.body.detail).toContain('did:web:127.0.0.1:8443:reviewers:pat');
    expectProblem(await put('did%3Aweb:127.0.0.1%3A8443:reviewers:pat'), 400, 'did_encoding_ambiguous');
    expect(await stored()).toEqual([]);
  });

  it('addresses that DID when its % is sent as %25, or when the DID is encoded as a whole', async () => {
    expect((await put('did:web:127.0.0.1%253A8443:reviewers:pat', 'Pat, %25')).status).toBe(204);
    expect(await stored()).toEqual([[WITH_PORT, 'Pat, %25']]);
    expect((await put(encodeURIComponent(WITH_PORT), 'Pat, encoded')).status).toBe(204);
    expect(await stored()).toEqual([[WITH_PORT, 'Pat, encoded']]);
  });

  it('takes a plain DID as it is, encoded as a whole, or with lower-case escapes', async () => {
    const did = 'did:web:example.com:reviewers:plain';
    for (const segment of [did, encodeURIComponent(did), 'did%3aweb%3aexample.com%3areviewers%3aplain']) {
      expect({ segment, status: (await put(segment, 'Plain')).status }).toEqual({ segment, status: 204 });
    }
    expect((await stored()).filter(([stored]) => stored !== WITH_PORT)).toEqual([[did, 'Plain']]);
  });
});

describe('GET /v1/orch/reviewers', () => {
  it('shows a reviewer’s e-mail and Slack user only to a caller who may manage reviewers', async () => {
    const did = 'did:web:example.com:reviewers:contact';
    const stored = await admin('PUT', `/v1/orch/reviewers/${encodeURIComponent(did)}`, {
      json: {
        display_name: 'Cora',
        email: 'cora@example.test',
        slack_user_id: 'U0CORA',
        capabilities: { contact_check: 0.9 },
      },
    });
    expect(stored.status).toBe(204);
    const reader = client(stack.baseUrl, await stack.token(['orch:read'], 'reviewer-reader'));
    const seenBy = async (caller: ReturnType<typeof client>) =>
      (
        (await caller('GET', '/v1/orch/reviewers?capability=contact_check')).body.data as Array<Record<string, unknown>>
      )[0];
    expect(await seenBy(admin)).toMatchObject({ did, email: 'cora@example.test', slack_user_id: 'U0CORA' });
    expect(await seenBy(reader)).toMatchObject({ did, display_name: 'Cora', email: null, slack_user_id: null });
  });
});

describe('a reviewer’s capability weights', () => {
  it('refuses a weight too small for the stored 4-byte float, by its field, and stores nothing', async () => {
    const did = 'did:web:example.com:reviewers:tiny';
    const reply = await admin('PUT', `/v1/orch/reviewers/${encodeURIComponent(did)}`, {
      json: { display_name: 'Tiny', capabilities: { tiny_check: 5e-324 } },
    });
    expectProblem(reply, 400, 'validation_failed');
    expect(JSON.stringify(reply.body)).toContain('capabilities.tiny_check');
    expect((await admin('GET', '/v1/orch/reviewers?capability=tiny_check')).body.data).toEqual([]);
  });
});
