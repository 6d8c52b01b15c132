import { CAPABILITIES } from '../../../domain/identity/capabilities';
import { MARKETPLACE_CAPABILITIES } from '../../../domain/identity/capability-vocabulary/marketplace';
import { ORCHESTRATION_CAPABILITIES } from '../../../domain/identity/capability-vocabulary/orchestration';
import { PEOPLE_CAPABILITIES } from '../../../domain/identity/capability-vocabulary/people';
import { PLATFORM_CAPABILITIES } from '../../../domain/identity/capability-vocabulary/platform';

describe('the capability vocabulary', () => {
  it('names each capability in one area only, so no area silently replaces another’s definition', () => {
    const areas = [PLATFORM_CAPABILITIES, PEOPLE_CAPABILITIES, ORCHESTRATION_CAPABILITIES, MARKETPLACE_CAPABILITIES];
    const names = areas.flatMap((area) => Object.keys(area));
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    expect(Object.keys(CAPABILITIES).sort()).toEqual([...names].sort());
  });
});
