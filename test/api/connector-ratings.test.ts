import { client, expectProblem } from '../support/http';
import { installationParties, installPlain } from '../support/connectors';
import { useStack } from '../support/stack';

jest.setTimeout(120_000);

const stack = useStack();
let member: ReturnType<typeof client>;
let reader: ReturnType<typeof client>;
let outsider: ReturnType<typeof client>;
let installationId: string;
let outsiderInstallationId: string;
const anonymous = () => client(stack.baseUrl);

beforeAll(async () => {
  ({ member, reader, outsider } = await installationParties(stack, 'rating', ['rated', 'unrated']));
  installationId = (await installPlain(member, 'rated')).body.installation_id;
  outsiderInstallationId = (await installPlain(outsider, 'rated')).body.installation_id;
});

describe('rating a connector', () => {
  it('rates through an active installation, and a second rating replaces the first', async () => {
    const first = await member('POST', '/v1/marketplace/connectors/rated/ratings', {
      json: { rating: 2, review_text: 'Slow', installation_id: installationId },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      rating: 2,
      review_text: 'Slow',
      installation_id: installationId,
      user: { user_id: 'rating-member', display_name: 'rating-member' },
    });
    const second = await member('POST', '/v1/marketplace/connectors/rated/ratings', {
      json: { rating: 5, installation_id: installationId },
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ rating_id: first.body.rating_id, rating: 5, review_text: null });
    expect(second.body.created_at).toBe(first.body.created_at);
    expect(
      (
        await outsider('POST', '/v1/marketplace/connectors/rated/ratings', {
          json: { rating: 4, installation_id: outsiderInstallationId },
        })
      ).status,
    ).toBe(201);

    const listed = await anonymous()('GET', '/v1/marketplace/connectors/rated/ratings');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    expect(listed.body.summary).toEqual({
      average: 4.5,
      count: 2,
      distribution: { '1': 0, '2': 0, '3': 0, '4': 1, '5': 1 },
    });
    const detail = await anonymous()('GET', '/v1/marketplace/connectors/rated');
    expect(detail.body).toMatchObject({ rating_average: 4.5, rating_count: 2 });
    expect(detail.body.statistics).toMatchObject({ rating_average: 4.5, rating_count: 2 });
    const page = await anonymous()('GET', '/v1/marketplace/connectors/rated/ratings?limit=1');
    expect(page.body).toMatchObject({ has_more: true, summary: { count: 2 } });
    const next = await anonymous()(
      'GET',
      `/v1/marketplace/connectors/rated/ratings?limit=1&cursor=${page.body.next_cursor}`,
    );
    expect(next.body.data[0].rating_id).not.toBe(page.body.data[0].rating_id);
  });

  it('refuses without a verified installation of the caller’s organization, with installation_not_verified', async () => {
    const rate = (as: ReturnType<typeof client>, connector: string, installation: string) =>
      as('POST', `/v1/marketplace/connectors/${connector}/ratings`, {
        json: { rating: 3, installation_id: installation },
      });
    expectProblem(await rate(outsider, 'rated', installationId), 403, 'installation_not_verified');
    expectProblem(await rate(member, 'unrated', installationId), 403, 'installation_not_verified');
    expectProblem(await rate(member, 'rated', 'ins_unknown'), 403, 'installation_not_verified');
    expect(
      (await member('PATCH', `/v1/marketplace/installations/${installationId}`, { json: { status: 'suspended' } }))
        .status,
    ).toBe(200);
    expectProblem(await rate(member, 'rated', installationId), 403, 'installation_not_verified');
    await member('PATCH', `/v1/marketplace/installations/${installationId}`, { json: { status: 'active' } });
    expectProblem(await rate(reader, 'rated', installationId), 403, 'insufficient_scope');
    expectProblem(await rate(anonymous(), 'rated', installationId), 401, 'unauthorized');
    expectProblem(await rate(member, 'nothing-here', installationId), 404, 'connector_not_found');
  });

  it('refuses stars outside 1..5 and a review over 2000 characters', async () => {
    for (const body of [
      { rating: 0, installation_id: installationId },
      { rating: 6, installation_id: installationId },
      { rating: 3.5, installation_id: installationId },
      { rating: 3, review_text: 'x'.repeat(2001), installation_id: installationId },
      { rating: 3 },
    ])
      expectProblem(
        await member('POST', '/v1/marketplace/connectors/rated/ratings', { json: body }),
        400,
        'validation_failed',
      );
    expect(
      (
        await member('POST', '/v1/marketplace/connectors/rated/ratings', {
          json: { rating: 3, review_text: 'x'.repeat(2000), installation_id: installationId },
        })
      ).status,
    ).toBe(200);
  });

  it('lists an unrated connector with an empty summary, and an unknown one as 404', async () => {
    const listed = await anonymous()('GET', '/v1/marketplace/connectors/unrated/ratings');
    expect(listed.body).toMatchObject({
      data: [],
      summary: { average: null, count: 0, distribution: { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 } },
    });
    expectProblem(
      await anonymous()('GET', '/v1/marketplace/connectors/nothing-here/ratings'),
      404,
      'connector_not_found',
    );
    expectProblem(
      await anonymous()('GET', '/v1/marketplace/connectors/rated/ratings?limit=0'),
      400,
      'validation_failed',
    );
  });
});
