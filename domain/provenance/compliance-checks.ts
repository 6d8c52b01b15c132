/** The checks a compliance report makes, each with the frameworks (HIPAA, GDPR, SOX) whose flag it decides. */
export const COMPLIANCE_CHECKS = {
  human_oversight_high_risk: {
    description: 'Every decision of high or critical risk went to a human (escalated or hybrid), never to the AI alone',
    frameworks: ['hipaa', 'gdpr'],
  },
  personal_data_minimised: {
    description:
      'No provenance record holds an e-mail address, a phone number, a US social security number or a payment card number: people and agents are named by DIDs and agent ids',
    frameworks: ['hipaa', 'gdpr'],
  },
  records_sealed: {
    description:
      'Every record of the period is sealed into a signed ledger checkpoint and its stored body still hashes to its leaf',
    frameworks: ['hipaa', 'sox'],
  },
  escalations_concluded: {
    description: 'No escalation ran out of reviewers without a human resolving it',
    frameworks: ['sox'],
  },
  human_decisions_attributed: {
    description: 'Every step taken by a human names that human by DID',
    frameworks: ['sox'],
  },
} as const;

export type ComplianceCheckId = keyof typeof COMPLIANCE_CHECKS;
export const CHECK_IDS = Object.keys(COMPLIANCE_CHECKS) as ComplianceCheckId[];
export type Framework = 'hipaa' | 'gdpr' | 'sox';
