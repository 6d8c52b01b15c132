/**
 * `npm run verify -- --key <verifier key> <file>`: checks, offline and with nothing but the log's public
 * key, an inclusion bundle (GET /v1/orch/provenance/{id}/proof, /v1/ledger/records/{id}/proof), a
 * consistency bundle (GET /v1/ledger/consistency), an attestation (POST /v1/provenance/attestations) or a
 * whole exported log (GET /v1/ledger/export, `npm run ledger:export`). No database, no network.
 * A decision signed in the inbox (GET /v1/inbox/items/{item_id}/signature) needs no key: the signer's DID
 * document in the bundle checks it (scripts/verify-decision.ts).
 * `npm run verify -- --did-document <issuer's DID document> <file>` checks a Passport attestation
 * (GET /v1/passports/{id}/attestations/{attestation_id}) against its issuer's DID document instead.
 *
 *   --key <vkey>                   the verifier key `<origin>+<key id>+<base64 key>` (GET /v1/ledger/key)
 *   --did-document <path>          the issuer's DID document (GET /passports/{id}/did.json), for a Passport attestation
 *   --key-file <path>              the same, read from a file
 *   --trusted-checkpoint <path>    a signed checkpoint you kept earlier: the exported log must extend it
 *                                  (repeatable)
 *   --json                         print the report as JSON
 *
 * Exit status: 0 verified, 1 not verified, 2 wrong usage.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { ConsistencyBundle, InclusionBundle } from '../services/ledger/formats';
import { CONSISTENCY_BUNDLE_FORMAT, EXPORT_FORMAT, INCLUSION_BUNDLE_FORMAT } from '../services/ledger/formats';
import { NoteError, parseVerifierKey, type NoteVerifier } from '../lib/signed-note';
import {
  verifyAttestation,
  verifyConsistencyBundle,
  verifyInclusionBundle,
  type AttestationDocument,
  type VerifyReport,
} from '../services/ledger/verify';
import { verifyExport } from '../services/ledger/verify-export';
import { decisionReport } from './verify-decision';
import { verifyPassportAttestation, type PassportAttestationDocument } from '../services/identity/attestations/verify';

class UsageError extends Error {}

function readArguments(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      key: { type: 'string' },
      'key-file': { type: 'string' },
      'trusted-checkpoint': { type: 'string', multiple: true },
      'did-document': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length === 1 && values['did-document'])
    return { didDocument: values['did-document'], file: positionals[0]!, json: values.json };
  const vkey = values.key ?? (values['key-file'] ? readFileSync(values['key-file'], 'utf8').trim() : undefined);
  if (positionals.length !== 1)
    throw new UsageError('Give one file to verify: a bundle (.json) or an export (.ndjson), or - for stdin');
  let verifier: NoteVerifier | undefined;
  try {
    verifier = vkey === undefined ? undefined : parseVerifierKey(vkey);
  } catch (error) {
    throw new UsageError(`The verifier key is not valid: ${(error as NoteError).message}`);
  }
  return {
    verifier,
    file: positionals[0]!,
    trusted: (values['trusted-checkpoint'] ?? []).map((path) => readFileSync(path, 'utf8')),
    json: values.json,
  };
}

/** Without a ledger key only a decision bundle verifies: its report, or a usage error for anything else. */
async function keylessReport(reader: AsyncIterator<string>, head: string): Promise<VerifyReport> {
  let text = head;
  for (let line = await reader.next(); !line.done; line = await reader.next()) text += `\n${line.value}`;
  const report = decisionReport(parsed(text));
  if (report) return report;
  throw new UsageError('Give the log’s verifier key with --key or --key-file (GET /v1/ledger/key answers it)');
}

function parsed(text: string): { format?: unknown } | undefined {
  try {
    return JSON.parse(text) as { format?: unknown };
  } catch {
    return undefined;
  }
}

/**
 * An export's first line is its header; anything else is read whole as a bundle (bundles are small,
 * exports are streamed line by line, so a log of millions of leaves needs no more memory than one line).
 */
async function verify(file: string, given: NoteVerifier | undefined, trusted: string[]): Promise<VerifyReport> {
  const reader = createInterface({ input: file === '-' ? process.stdin : createReadStream(file), crlfDelay: Infinity })[
    Symbol.asyncIterator
  ]();
  const first = await reader.next();
  const head = first.done ? '' : first.value;
  const verifier = given ?? (await keylessReport(reader, head));
  if ('ok' in verifier) return verifier;
  if (parsed(head)?.format === EXPORT_FORMAT) {
    const rest = { [Symbol.asyncIterator]: () => reader };
    return verifyExport(
      (async function* () {
        yield head;
        yield* rest;
      })(),
      verifier,
      { trusted },
    );
  }
  let text = head;
  for (let line = await reader.next(); !line.done; line = await reader.next()) text += `\n${line.value}`;
  const bundle = parsed(text);
  const decision = decisionReport(bundle);
  if (decision) return decision;
  if (bundle?.format === INCLUSION_BUNDLE_FORMAT) return verifyInclusionBundle(bundle as InclusionBundle, verifier);
  if (bundle?.format === CONSISTENCY_BUNDLE_FORMAT)
    return verifyConsistencyBundle(bundle as ConsistencyBundle, verifier);
  if (bundle && 'attestationId' in bundle && 'signature' in bundle)
    return verifyAttestation(bundle as unknown as AttestationDocument, verifier);
  return {
    ok: false,
    verified: [],
    problems: [
      `${file} is not a ${INCLUSION_BUNDLE_FORMAT} or ${CONSISTENCY_BUNDLE_FORMAT} bundle, an attestation, or a ${EXPORT_FORMAT} export`,
    ],
  };
}

/** A Passport attestation, checked against the issuer's DID document given beside it. */
async function verifyWithDidDocument(file: string, documentPath: string): Promise<VerifyReport> {
  const attestation = parsed(readFileSync(file === '-' ? 0 : file, 'utf8')) as PassportAttestationDocument | undefined;
  const document = parsed(readFileSync(documentPath, 'utf8')) as Record<string, unknown> | undefined;
  if (!attestation || typeof attestation.proof !== 'string' || !document)
    return {
      ok: false,
      verified: [],
      problems: [`${file} is not a Passport attestation, or ${documentPath} no DID document`],
    };
  return verifyPassportAttestation(attestation, document);
}

async function main(): Promise<number> {
  let options: ReturnType<typeof readArguments>;
  try {
    options = readArguments(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(
      `${(error as Error).message}\n\nUsage: npm run verify -- [--key <verifier key>] [--trusted-checkpoint <file>] [--json] <file>\n` +
        '       npm run verify -- --did-document <issuer DID document> [--json] <attestation file>\n',
    );
    return 2;
  }
  let report: VerifyReport;
  try {
    report =
      options.didDocument !== undefined
        ? await verifyWithDidDocument(options.file, options.didDocument)
        : await verify(options.file, options.verifier, options.trusted);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    for (const line of report.verified) process.stdout.write(`ok    ${line}\n`);
    for (const line of report.problems) process.stdout.write(`FAIL  ${line}\n`);
    process.stdout.write(report.ok ? 'VERIFIED\n' : 'NOT VERIFIED\n');
  }
  return report.ok ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
