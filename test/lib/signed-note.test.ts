import { checkpointText, parseCheckpointText } from '../../domain/ledger/checkpoint';
import {
  createNoteSigner,
  NoteError,
  openNote,
  parseVerifierKey,
  signNote,
  verifierKeyString,
} from '../../lib/signed-note';

// The reference vector of golang.org/x/mod/sumdb/note (note_test.go): Ed25519 is deterministic, so
// signing the same text with the same key must give the same note byte for byte.
const GO_SIGNER_KEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const GO_VERIFIER_KEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

const goSeed = () => Buffer.from(GO_SIGNER_KEY.split('+').slice(4).join('+'), 'base64').subarray(1);

describe('C2SP signed notes', () => {
  it('signs the Go reference note byte for byte and derives its verifier key', () => {
    const signer = createNoteSigner('PeterNeumann', goSeed());
    expect(signNote(GO_TEXT, signer)).toBe(GO_NOTE);
    expect(verifierKeyString(signer)).toBe(GO_VERIFIER_KEY);
    expect(signer.keyId.toString(16)).toBe('c74f20a3');
  });

  it('opens the Go reference note with its verifier key', () => {
    expect(openNote(GO_NOTE, parseVerifierKey(GO_VERIFIER_KEY))).toBe(GO_TEXT);
  });

  it.each([
    ['an edited text', GO_NOTE.replace('cryptography', 'cryptographY')],
    ['a flipped signature byte', GO_NOTE.replace('x08go', 'x08gp')],
    ['no signature line', `${GO_TEXT}\n`],
    ['only another key’s signature', GO_NOTE.replace('PeterNeumann', 'EnochRoot')],
    ['no blank line', GO_NOTE.replace(`${GO_TEXT}\n`, GO_TEXT)],
  ])('rejects %s', (_name, note) => {
    expect(() => openNote(note, parseVerifierKey(GO_VERIFIER_KEY))).toThrow(NoteError);
  });

  it('ignores signatures of unknown keys beside a good one', () => {
    const other = createNoteSigner('someone.example/else', Buffer.alloc(32, 7));
    const cosigned = `${GO_NOTE}${signNote(GO_TEXT, other).slice(GO_TEXT.length + 1)}`;
    expect(openNote(cosigned, parseVerifierKey(GO_VERIFIER_KEY))).toBe(GO_TEXT);
  });

  it.each([
    ['a wrong key id', GO_VERIFIER_KEY.replace('c74f20a3', 'c74f20a4')],
    ['a renamed key', GO_VERIFIER_KEY.replace('PeterNeumann', 'PeterNeumanm')],
    ['a truncated key', GO_VERIFIER_KEY.slice(0, -4)],
    ['no key id', 'PeterNeumann+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'],
  ])('refuses a verifier key with %s', (_name, vkey) => {
    expect(() => parseVerifierKey(vkey)).toThrow(NoteError);
  });
});

describe('checkpoint text', () => {
  const checkpoint = {
    origin: 'handoff.example/ledger',
    treeSize: 20852163,
    rootHash: 'CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=',
  };

  it('is origin, size and root, one per line, as C2SP tlog-checkpoint writes it', () => {
    expect(checkpointText(checkpoint)).toBe(
      'handoff.example/ledger\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
    );
    expect(parseCheckpointText(checkpointText(checkpoint))).toEqual(checkpoint);
  });

  it.each([
    ['a leading zero', 'o\n01\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n'],
    ['a short root', 'o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2=\n'],
    ['no final newline', 'o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I='],
    ['an origin with a space', 'o o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n'],
    ['an extension line', 'o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\next\n'],
  ])('refuses %s', (_name, text) => {
    expect(parseCheckpointText(text)).toBeUndefined();
  });
});
