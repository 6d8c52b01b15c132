import { AGENT_STATUSES, AGENT_URN_PATTERN } from '../../domain/agents/agents';
import { PERFORMANCE_TRENDS } from '../../domain/agents/performance';
import { RISK_LEVELS } from '../../domain/routing/risk';
import { z } from './zod';

const unit = z.number().min(0).max(1);

export const AgentIdSchema = z
  .string()
  .regex(AGENT_URN_PATTERN, 'must be an agent URN (urn:<namespace>:agent:<kind>:<instance>)')
  .openapi({ example: 'urn:acme:agent:diagnosis:7' });

const AgentCapabilitySchema = z.object({ capability_id: z.string().min(1).max(200), confidence_level: unit }).strict();

export const SafetyConstraintsSchema = z
  .object({
    cannot_prescribe: z.boolean().optional().openapi({ description: 'Tasks that involve prescribing go to a human' }),
    requires_human_confirmation: z
      .boolean()
      .optional()
      .openapi({ description: 'Every routing of the agent is hybrid at least' }),
    max_risk_level: z.enum(RISK_LEVELS).optional().openapi({ description: 'The highest risk the agent acts on alone' }),
  })
  .strict()
  .openapi('AgentSafetyConstraints');

export const RegisterAgentSchema = z
  .object({
    agent_id: AgentIdSchema.optional().openapi({
      description: 'The agent’s URN; minted as urn:handoff:agent:<agent_type>:<random> when absent',
    }),
    agent_name: z.string().min(1).max(200),
    agent_type: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be lower-case letters, digits, _ or -')
      .openapi({ example: 'diagnosis' }),
    capabilities: z.array(AgentCapabilitySchema).max(100).default([]),
    safety_constraints: SafetyConstraintsSchema.default({}),
    model_info: z
      .object({
        model_type: z.string().max(200).optional(),
        version: z.string().max(200).optional(),
        training_data: z.string().max(2000).optional(),
      })
      .strict()
      .default({}),
  })
  .strict()
  .openapi('AgentRegistrationRequest');

export const AgentSchema = z
  .object({
    agent_id: z.string(),
    did: z.string(),
    agent_name: z.string(),
    agent_type: z.string(),
    status: z.enum(AGENT_STATUSES),
    capabilities: z.array(AgentCapabilitySchema),
    safety_constraints: SafetyConstraintsSchema,
    model_info: z.record(z.string(), z.string()),
    safety_boundaries_configured: z.number().int().openapi({ description: 'How many safety constraints are set' }),
    monitoring_enabled: z.boolean(),
    registered_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Agent');

export const AgentRegisteredSchema = AgentSchema.extend({
  api_key: z
    .string()
    .nullable()
    .openapi({
      description:
        'Shown once; only its hash is stored (and, for an Idempotency-Key replay, the answer sealed for 24 h). Send it as Authorization: Bearer to call ' +
        'the agent operations as this agent. null only in a replay when the deployment has no SECRETS_ENCRYPTION_KEY to seal it with.',
    }),
}).openapi('AgentRegistration');

export const PatchAgentSchema = z
  .object({
    agent_name: z.string().min(1).max(200).optional(),
    status: z
      .enum(AGENT_STATUSES)
      .optional()
      .openapi({ description: 'suspended or retired agents are refused with agent_not_registered' }),
    capabilities: z.array(AgentCapabilitySchema).max(100).optional(),
    safety_constraints: SafetyConstraintsSchema.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'name at least one field to change' })
  .openapi('PatchAgentRequest');

export const AgentPerformanceSchema = z
  .object({
    agent_id: z.string(),
    period: z.string(),
    period_start: z.string(),
    period_end: z.string(),
    total_requests: z.number().int(),
    successful_resolutions: z.number().int().openapi({
      description:
        'Routings where the AI’s recommendation stood: autonomous and not overturned, or approved by the human',
    }),
    escalations_to_human: z.number().int(),
    escalation_rate: z.number(),
    avg_confidence: z.number().nullable(),
    safety_violations: z
      .number()
      .int()
      .openapi({ description: 'Violations found at routing and by POST /safety/check' }),
    boundary_checks_passed: z.number().int().openapi({
      description: 'Routings decided with every boundary met, and safety checks allowed without violation',
    }),
    accuracy_metrics: z.object({
      human_agreement_rate: z.number().nullable().openapi({
        description:
          'Of routings a human judged (resolved, or autonomous with feedback): the share where the human agreed with the AI',
      }),
      false_positive_rate: z.number().nullable().openapi({
        description:
          'Of escalated routings a human resolved: the share approved unchanged (the escalation was not needed)',
      }),
      false_negative_rate: z.number().nullable().openapi({
        description: 'Of autonomous routings: the share later overturned or flagged (POST /routing/{id}/feedback)',
      }),
    }),
    performance_trend: z.enum(PERFORMANCE_TRENDS).openapi({
      description:
        'The success rate against the previous period of the same length (±0.05); insufficient_data below 5 settled routings in either',
    }),
    areas_for_improvement: z.array(z.string()),
  })
  .openapi('AgentPerformance');
