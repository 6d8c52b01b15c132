import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { candidatesSatisfying } from '../../db/capability-grants';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * capability_implications: each organization's closure of its definitions' implications, kept by the
 * triggers on capability_definitions whatever writes them, and read by the matcher in one prepared statement.
 */
const OTHER_ORG = 'org_implications_other';
let database: TestDatabase;

const definition = (organization_id: string, name: string, implies: string[] = []) => ({
  organization_id,
  capability_name: name,
  capability_id: `capability://x/${name}`,
  name,
  description: name,
  implies: JSON.stringify(implies),
  created_by: 'test',
  created_at: new Date(),
  updated_at: new Date(),
});

const closure = async (organizationId: string) =>
  (
    await database
      .db('capability_implications')
      .where({ organization_id: organizationId })
      .orderBy(['capability_name', 'implied_name'])
      .select<Array<{ capability_name: string; implied_name: string; via: string[] }>>(
        'capability_name',
        'implied_name',
        'via',
      )
  ).map((row) => row.via.join(' → '));

beforeAll(async () => {
  database = await createTestDatabase();
  const now = new Date();
  await database.db('organizations').insert({
    organization_id: OTHER_ORG,
    org_did: 'did:web:implications-other.example',
    name: 'Other',
    deployment_mode: 'cloud',
    autonomy_profile: 'balanced',
    data_residency_tier: 'global',
    created_at: now,
    updated_at: now,
  });
});
afterAll(() => database?.destroy());

describe('the closure of implications', () => {
  it('holds every implied capability with its shortest chain, through a cycle, rebuilt as definitions are added', async () => {
    const { db } = database;
    await db('capability_definitions').insert([
      definition(DEFAULT_ORGANIZATION_ID, 'clinician'),
      definition(DEFAULT_ORGANIZATION_ID, 'physician', ['clinician']),
      definition(DEFAULT_ORGANIZATION_ID, 'cardiologist', ['physician']),
    ]);
    expect(await closure(DEFAULT_ORGANIZATION_ID)).toEqual([
      'cardiologist → physician → clinician',
      'cardiologist → physician',
      'physician → clinician',
    ]);
    // A shorter way in, and a cycle back: each pair once, by its shortest chain, never a capability to itself.
    await db('capability_definitions').insert(
      definition(DEFAULT_ORGANIZATION_ID, 'carer', ['clinician', 'cardiologist']),
    );
    await db('capability_definitions')
      .where({ organization_id: DEFAULT_ORGANIZATION_ID, capability_name: 'clinician' })
      .update({ implies: JSON.stringify(['carer']) });
    const all = await closure(DEFAULT_ORGANIZATION_ID);
    expect(all).toEqual(
      expect.arrayContaining([
        'carer → clinician',
        'carer → cardiologist',
        'clinician → carer',
        'cardiologist → physician',
      ]),
    );
    expect(all).toContain('cardiologist → physician → clinician');
    expect(all.filter((chain) => chain.startsWith('carer → ') && chain.endsWith(' → physician'))).toEqual([
      'carer → cardiologist → physician',
    ]);
    expect(all.every((chain) => chain.split(' → ')[0] !== chain.split(' → ').at(-1))).toBe(true);
  });

  it('is kept per organization: another organization’s definitions never imply anything here', async () => {
    const { db } = database;
    await db('capability_definitions').insert(definition(OTHER_ORG, 'physician', ['surgeon']));
    expect(await closure(OTHER_ORG)).toEqual(['physician → surgeon']);
    expect((await closure(DEFAULT_ORGANIZATION_ID)).some((chain) => chain.includes('surgeon'))).toBe(false);

    const { satisfiers } = await candidatesSatisfying(
      db,
      DEFAULT_ORGANIZATION_ID,
      ['surgeon', 'physician'],
      new Date().toISOString(),
    );
    expect(satisfiers.get('surgeon')).toEqual(new Map([['surgeon', ['surgeon']]]));
    expect(satisfiers.get('physician')).toEqual(
      new Map([
        ['physician', ['physician']],
        ['cardiologist', ['cardiologist', 'physician']],
        ['carer', ['carer', 'cardiologist', 'physician']],
        ['clinician', ['clinician', 'carer', 'cardiologist', 'physician']],
      ]),
    );
  });

  it('leaves the closure as it is when a write changes no implication (a promotion), and drops what a deletion removes', async () => {
    const { db } = database;
    // Row versions (xmin): a rebuild would write every row anew.
    const versions = () =>
      db('capability_implications')
        .where({ organization_id: DEFAULT_ORGANIZATION_ID })
        .orderBy(['capability_name', 'implied_name'])
        .select(db.raw('xmin::text as version'));
    const before = await versions();
    await db('capability_definitions')
      .where({ organization_id: DEFAULT_ORGANIZATION_ID, capability_name: 'physician' })
      .update({ status: 'promoted', promoted_at: new Date() });
    expect(await versions()).toEqual(before);
    await db('capability_definitions').where({ organization_id: OTHER_ORG }).delete();
    expect(await closure(OTHER_ORG)).toEqual([]);
  });
});
