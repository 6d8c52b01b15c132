/** Personal data in a provenance record's text: what the compliance report's minimisation check looks for. */

/** Digits that pass the Luhn check (payment card numbers do). */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

const PERSONAL_DATA: Array<{ kind: string; find: (text: string) => boolean }> = [
  {
    kind: 'an e-mail address',
    find: (text) => /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/.test(text),
  },
  { kind: 'a US social security number', find: (text) => /(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])/.test(text) },
  {
    kind: 'a phone number',
    find: (text) =>
      /(?<![\w+])\+\d{1,3}[ -]?\d{3,4}[ -]?\d{3,4}[ -]?\d{0,4}(?!\d)/.test(text) || /\(\d{3}\) ?\d{3}-\d{4}/.test(text),
  },
  {
    kind: 'a payment card number',
    // 15 or 16 digits, grouped or not, that pass Luhn: millisecond timestamps (13 digits) do not match.
    find: (text) =>
      [...text.matchAll(/(?<!\d)(?:\d{4}[ -]?){3}\d{3,4}(?!\d)/g)].some(
        (match) => /^[3-6]/.test(match[0]) && luhn(match[0].replace(/[ -]/g, '')),
      ),
  },
];

/** The kinds of personal data a record's text holds, if any. */
export function personalDataIn(text: string): string[] {
  return PERSONAL_DATA.filter((pattern) => pattern.find(text)).map((pattern) => pattern.kind);
}
