import { boundsFields, CapabilityListSchema } from './delegation';
import { DidSchema } from './common';
import { z } from './zod';

export const DelegatePassportPermissionsSchema = z
  .object({
    delegateeDID: DidSchema.openapi({
      description: 'The DID of an agent of the organization that will act for the person',
    }),
    capabilities: CapabilityListSchema,
    ...boundsFields,
  })
  .openapi('DelegatePassportPermissionsRequest');
