import { childPointer, type DocumentValidator, type Operation } from './openapi-document';
import { Harvested, IdempotencyKey, type HarvestPool, type RequestPlan } from './openapi-requests';
import type { Answer } from './openapi-wire';

/**
 * What an answer does wrong by the operation's contract: a server error (but 503 with Retry-After), a status
 * the document does not list, a body unlike the documented one, or an error that is not an RFC 9457 problem.
 */
export function answerViolations(operation: Operation, validator: DocumentValidator, answer: Answer): string[] {
  const violations: string[] = [];
  const { status } = answer;
  if (status >= 500 && !(status === 503 && answer.headers['retry-after']))
    violations.push(`${status} is a server error`);

  const key = [String(status), `${String(status).charAt(0)}XX`, 'default'].find(
    (candidate) => operation.responses[candidate],
  );
  const mediaType = (answer.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!key) {
    violations.push(
      `${status} is not a documented response (documented: ${Object.keys(operation.responses).join(', ')})`,
    );
  } else {
    const content = operation.responses[key]!.content;
    if (!content) {
      if (answer.text.length > 0)
        violations.push(
          `${status} is documented without a body, yet the answer has one (${mediaType || 'no content type'})`,
        );
    } else if (!content[mediaType]) {
      violations.push(
        `${status} is documented as ${Object.keys(content).join(' or ')}, yet the answer is ${mediaType || 'without a content type'}`,
      );
    } else if (content[mediaType].schema) {
      const isJson = /[/+]json$/.test(mediaType);
      if (isJson && answer.json === undefined) {
        violations.push(`the ${mediaType} body is not JSON`);
      } else {
        const result = validator.validate(
          childPointer(operation.pointer, 'responses', key, 'content', mediaType, 'schema'),
          isJson ? answer.json : answer.text,
        );
        if (!result.valid) violations.push(`the body does not match the documented ${status} schema: ${result.errors}`);
      }
    }
  }

  // A page for a person's browser (a decision link, the OAuth callback) may answer its refusal as the HTML the
  // operation documents beside the problem; everything else answers a problem.
  const documentedPage =
    key !== undefined && mediaType === 'text/html' && operation.responses[key]?.content?.[mediaType];
  if (status >= 400 && status < 500 && !documentedPage) {
    const problem = answer.json as Record<string, unknown> | undefined;
    if (mediaType !== 'application/problem+json')
      violations.push(`a ${status} must be application/problem+json, not ${mediaType || 'without a content type'}`);
    if (typeof problem !== 'object' || problem === null) {
      violations.push(`a ${status} must carry a problem document`);
    } else {
      if (typeof problem.type !== 'string') violations.push('the problem has no type');
      if (typeof problem.title !== 'string') violations.push('the problem has no title');
      if (problem.status !== status)
        violations.push(`the problem's status ${String(problem.status)} is not the HTTP status ${status}`);
      // A replay (Idempotent-Replayed) is the first answer as it was, request_id included.
      const replayed = answer.headers['idempotent-replayed'] === 'true';
      if (typeof problem.request_id !== 'string') violations.push('the problem has no request_id');
      else if (!replayed && problem.request_id !== answer.headers['x-request-id']) {
        violations.push(
          `the problem's request_id ${problem.request_id} is not the X-Request-ID ${String(answer.headers['x-request-id'])}`,
        );
      }
    }
  }
  return violations;
}

export interface RequestReading {
  /** Parts generated as valid that the document's own schema refuses: an unsatisfiable schema, or a gap in the generator. */
  violations: string[];
  /** Every part, harvested ids included, is valid by the document. */
  admitted: boolean;
}

/** Reads a plan against the document's request schemas: parameters by their schemas, the body by the request body's. */
export function readRequest(
  operation: Operation,
  validator: DocumentValidator,
  plan: RequestPlan,
  pool: HarvestPool,
): RequestReading {
  if (plan.intent !== 'valid') return { violations: [], admitted: false };
  const violations: string[] = [];
  let admitted = true;
  operation.parameters.forEach((parameter, index) => {
    const values = { path: plan.path, query: plan.query, header: plan.headers, cookie: {} as Record<string, unknown> }[
      parameter.in
    ];
    const value = values[parameter.name];
    // Keys are made when the request is sent, in the form of the pattern.
    if (value === undefined || value instanceof IdempotencyKey) return;
    const result = validator.validate(
      childPointer(operation.pointer, 'parameters', String(index), 'schema'),
      pool.resolve(value),
    );
    if (result.valid) return;
    admitted = false;
    if (!(value instanceof Harvested))
      violations.push(
        `the generated ${parameter.in} parameter ${parameter.name} is refused by its own schema: ${result.errors}`,
      );
  });
  if (operation.body && plan.body.kind === 'json') {
    const result = validator.validate(operation.body.pointer, plan.body.value);
    if (!result.valid) {
      admitted = false;
      violations.push(
        `the request body generated from the document is refused by the document's own schema (is it satisfiable?): ${result.errors}`,
      );
    }
  }
  return { violations, admitted };
}

/**
 * Field-error codes that speak of shape, which a document carries: types, required and unknown fields,
 * lengths, bounds and formats. Refinements (custom) and refused values of an open string (invalid_value, as
 * for sort) can be rules the schema cannot state, so they do not count.
 */
const SHAPE_CODES = new Set([
  'invalid_type',
  'unrecognized_keys',
  'too_small',
  'too_big',
  'invalid_format',
  'not_multiple_of',
  'invalid_union',
  'invalid_key',
  'invalid_element',
]);

/** A request the document admits, refused by the server for its shape: the document and the server's schema disagree. */
export function shapeRefusal(reading: RequestReading, answer: Answer): string | undefined {
  const problem = answer.json as { type?: unknown; errors?: Array<{ code?: unknown }> } | undefined;
  if (!reading.admitted || answer.status !== 400 || problem?.type !== '/problems/validation_failed') return undefined;
  const shape = (problem.errors ?? []).filter((error) => SHAPE_CODES.has(String(error.code)));
  return shape.length > 0
    ? `the document admits this request, yet the server refused its shape: ${JSON.stringify(shape)}`
    : undefined;
}
