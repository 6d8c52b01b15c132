import { APPROVAL_THRESHOLDS } from '../../domain/executions/agent-calls';
import { DidSchema, listQuerySchema } from './common';
import { z } from './zod';

const JsonObjectSchema = z.record(z.string(), z.unknown());
const CapabilityUriSchema = z
  .string()
  .regex(
    /^capability:\/\/(?:[a-z0-9][a-z0-9._-]{0,62}\/)?[a-z0-9][a-z0-9._-]{0,62}$/,
    'must be capability://<org>/<name> or capability://<name>',
  )
  .openapi({ example: 'capability://acme/summarize' });
const AgentUriSchema = z
  .string()
  .regex(
    /^agent:\/\/[a-z0-9][a-z0-9._-]{0,62}\/[a-z0-9][a-z0-9._-]{0,62}@\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/,
    'must be agent://<org>/<name>@<semver>',
  )
  .openapi({ example: 'agent://acme/summarizer@1.2.0' });
const EndpointSchema = z.url({ protocol: /^https?$/ }).max(2000);

const ApprovalPolicySchema = z
  .object({
    require_approval_at: z.enum(APPROVAL_THRESHOLDS).default('high').openapi({
      description: 'The lowest call risk that needs a human’s approval first; never: none does; low: every call does',
    }),
    approver_passport_id: DidSchema.optional(),
    approval_ttl_seconds: z
      .number()
      .int()
      .positive()
      .optional()
      .openapi({ description: 'Default: APPROVAL_DEFAULT_TTL_SECONDS' }),
  })
  .strict()
  .openapi('AgentApprovalPolicy');

export const DeploymentSchema = z
  .object({
    deployment_id: z.string(),
    agent_id: z.string().openapi({ description: 'The deployed version’s agent id' }),
    agent_uri: z.string(),
    environment: z.string(),
    version: z.string(),
    parameters: JsonObjectSchema,
    deployed_by: z.string(),
    deployed_at: z.string(),
  })
  .openapi('AgentDeployment');

export const PlatformAgentSchema = z
  .object({
    agent_id: z.string().openapi({ example: 'agt_5e1f…' }),
    agent_uri: z.string(),
    passportId: z.string().openapi({ description: 'The agent’s DID' }),
    capabilities: z.array(z.string()),
    status: z.enum(['active', 'inactive']),
    org: z.string(),
    name: z.string(),
    version: z.string(),
    description: z.string().nullable(),
    endpoint_url: z.string(),
    approval_policy: z.object({
      require_approval_at: z.enum(APPROVAL_THRESHOLDS),
      approver_passport_id: z.string().optional(),
      approval_ttl_seconds: z.number().int().optional(),
    }),
    parameters_schema: JsonObjectSchema.nullable(),
    timeout_seconds: z.number().int(),
    max_attempts: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('PlatformAgent');

export const PlatformAgentDetailSchema = PlatformAgentSchema.extend({
  deployments: z.array(DeploymentSchema).openapi({
    description:
      'What each environment runs now (the latest deployment per environment) of this agent’s org/name in the caller’s organization',
  }),
}).openapi('PlatformAgentDetail');

export const RegisterAgentSchema = z
  .object({
    agent_uri: AgentUriSchema.openapi({
      description:
        'agent://<org>/<name>@<semver>, where <org> is the slug or the organization id of the caller’s organization',
    }),
    endpoint_url: EndpointSchema.openapi({
      description: 'Where executions POST their calls; must pass the outbound policy (OUTBOUND_PRIVATE_ALLOWLIST)',
    }),
    capabilities: z.array(CapabilityUriSchema).min(1).max(100),
    passport_id: DidSchema.optional().openapi({ description: 'Default: did:web:handoff.local:agents:<org>:<name>' }),
    description: z.string().max(2000).optional(),
    approval_policy: ApprovalPolicySchema.default({ require_approval_at: 'high' }),
    parameters_schema: JsonObjectSchema.optional().openapi({
      description: 'JSON Schema of the call’s parameters; what an approver’s modified_params must fit',
    }),
    timeout_seconds: z.number().int().min(1).max(3600).optional(),
    max_attempts: z.number().int().min(1).max(20).optional(),
    status: z.enum(['active', 'inactive']).default('active'),
  })
  .strict()
  .openapi('RegisterPlatformAgentRequest');

export const UpdateAgentSchema = z
  .object({
    endpoint_url: EndpointSchema.optional(),
    capabilities: z.array(CapabilityUriSchema).min(1).max(100).optional(),
    description: z.string().max(2000).optional(),
    approval_policy: ApprovalPolicySchema.optional(),
    parameters_schema: JsonObjectSchema.nullable().optional(),
    timeout_seconds: z.number().int().min(1).max(3600).optional(),
    max_attempts: z.number().int().min(1).max(20).optional(),
    status: z.enum(['active', 'inactive']).optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'names nothing to change' })
  .openapi('UpdateAgentRequest');

export const DeployAgentSchema = z
  .object({
    environment: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be a lower-case name such as production or staging'),
    version: z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/, 'must be a semantic version'),
    parameters: JsonObjectSchema.default({}).openapi({
      description: 'Defaults merged under the parameters of calls that reach this deployment by agent id',
    }),
  })
  .strict()
  .openapi('DeployAgentRequest');

export const AgentCallSchema = z
  .object({
    agentUri: AgentUriSchema,
    capabilityUri: CapabilityUriSchema,
    passport: DidSchema.openapi({ description: 'The requester’s DID' }),
    parameters: JsonObjectSchema.default({}),
    task_id: z.string().min(1).max(200).optional(),
    callback_url: EndpointSchema.optional().openapi({
      description: 'Receives the outcome, signed with your callback signing secret (POST /v1/callback-secrets)',
    }),
    max_attempts: z.number().int().min(1).max(20).optional().openapi({ description: 'Default: the agent’s' }),
  })
  .strict()
  .openapi('AgentCallRequest');

export const LegacyAgentCallSchema = z
  .object({
    task: z
      .string()
      .min(1)
      .max(300)
      .openapi({ description: 'The capability to call: a capability URI, or a capability name of the agent' }),
    parameters: JsonObjectSchema.default({}),
    callback_url: EndpointSchema.optional(),
  })
  .strict()
  .openapi('LegacyAgentCallRequest');

export const AgentIdParamsSchema = z.object({
  agent_id: z.string().regex(/^agt_[0-9a-f]{24}$/, 'must be an agent id (agt_…)'),
});

export const ListAgentsQuerySchema = listQuerySchema.extend({
  status: z.enum(['active', 'inactive']).optional(),
  capability: CapabilityUriSchema.optional(),
  org: z.string().optional(),
});
