/**
 * The parameters editor of the inbox script: one input per parameter of the item's params_schema (else of
 * its request data, as the service infers the schema), checked in the page before the passkey signs, and
 * the service's errors shown by the field they name (aria-invalid, aria-describedby).
 */
export const PARAMS_SCRIPT = `
let paramFields = [];
/** The fields to edit: a routing's recommendation, or a request's parameters. */
function fieldsOf(item) {
  if (item.kind === 'routing')
    return [{ name: 'recommendation', type: 'string', required: true, minLength: 1, label: 'Recommendation', value: item.recommendation || '' }];
  const schema = item.params_schema || {};
  const typeOf = (value) => (Array.isArray(value) ? 'array' : typeof value);
  const properties = schema.properties
    || Object.fromEntries(Object.entries(item.context || {}).map(([key, value]) => [key, { type: typeOf(value) }]));
  const required = new Set(schema.required || []);
  return Object.entries(properties).map(([name, rule]) => ({
    ...rule, name, required: required.has(name), label: rule.title || name, value: item.context ? item.context[name] : undefined,
  }));
}
function renderParams(item) {
  paramFields = fieldsOf(item);
  const box = $('param-fields');
  box.replaceChildren();
  $('params').hidden = paramFields.length === 0;
  paramFields.forEach((field, index) => {
    const id = 'param-' + index;
    const label = text('label', field.label + (field.required ? ' (required)' : ''), { for: id });
    const input = field.type === 'object' || field.type === 'array' ? document.createElement('textarea') : document.createElement('input');
    input.id = id;
    input.dataset.param = field.name;
    if (input.tagName === 'INPUT') input.type = field.type === 'number' || field.type === 'integer' ? 'number' : field.type === 'boolean' ? 'checkbox' : 'text';
    if (field.type === 'number') input.step = 'any';
    if (input.type === 'checkbox') input.checked = field.value === true;
    else input.value = field.value === undefined ? '' : typeof field.value === 'object' ? JSON.stringify(field.value, null, 2) : String(field.value);
    input.setAttribute('aria-describedby', id + '-error');
    box.append(label, input, text('p', '', { id: id + '-error', class: 'error' }));
  });
}
function fieldError(name, message) {
  const index = paramFields.findIndex((field) => field.name === name);
  const id = index >= 0 ? 'param-' + index : 'comment';
  $(id).setAttribute('aria-invalid', 'true');
  $(id + '-error').textContent = (index >= 0 ? '' : name + ': ') + message;
  return $(id);
}
function clearFieldErrors() {
  for (const element of document.querySelectorAll('[aria-invalid]')) element.removeAttribute('aria-invalid');
  for (const element of document.querySelectorAll('#decision-form .error')) element.textContent = '';
}
/** One parameter's value as typed, or why it does not fit its rule. */
function readParam(field, input) {
  const raw = input.value.trim();
  if (input.type === 'checkbox') return { value: input.checked };
  if (raw === '') return field.required ? { problem: 'Enter a value' } : { skip: true };
  if (field.type === 'number' || field.type === 'integer') {
    const value = Number(raw);
    if (!Number.isFinite(value)) return { problem: 'Enter a number' };
    if (field.type === 'integer' && !Number.isInteger(value)) return { problem: 'Enter a whole number' };
    if (field.minimum !== undefined && value < field.minimum) return { problem: 'Enter at least ' + field.minimum };
    if (field.maximum !== undefined && value > field.maximum) return { problem: 'Enter at most ' + field.maximum };
    return { value };
  }
  if (field.type === 'object' || field.type === 'array') {
    try { return { value: JSON.parse(raw) }; } catch { return { problem: 'Enter valid JSON' }; }
  }
  if (field.enum && !field.enum.includes(raw)) return { problem: 'Choose one of ' + field.enum.join(', ') };
  if (field.maxLength !== undefined && raw.length > field.maxLength) return { problem: 'Use at most ' + field.maxLength + ' characters' };
  if (field.pattern && !new RegExp(field.pattern, 'u').test(raw)) return { problem: 'Does not match the expected format' };
  return { value: raw };
}
/** The modified parameters, or undefined after showing each field's problem (focus on the first). */
function modifiedParameters() {
  const values = {};
  let first = null;
  paramFields.forEach((field, index) => {
    const read = readParam(field, $('param-' + index));
    if (read.problem) first = first || fieldError(field.name, read.problem);
    else if (!read.skip) values[field.name] = read.value;
  });
  if (first) { first.focus(); return undefined; }
  return values;
}
/** The service's field errors (modified_parameters.x) by their field. */
function showServiceErrors(error) {
  let first = null;
  for (const problem of error.fields || []) {
    const name = String(problem.field || '').replace(/^modified_parameters\\.?/, '');
    first = first || fieldError(name || 'modified_parameters', problem.message);
  }
  if (first) first.focus();
}
`;
