import { spawn } from 'node:child_process';
import path from 'node:path';

// swagger-parser loads ESM-only dependencies that Jest's CommonJS runtime cannot require, while Node itself can.
const VALIDATE = `
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
try {
  await SwaggerParser.validate(JSON.parse(Buffer.concat(chunks).toString('utf8')));
} catch (error) {
  process.stderr.write(error.message);
  process.exit(1);
}
`;

/** Validates an OpenAPI document with @apidevtools/swagger-parser in a Node process of its own; rejects with its findings. */
export function validateOpenApi(document: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '--eval', VALIDATE], {
      cwd: path.resolve(__dirname, '../..'),
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let findings = '';
    child.stderr.on('data', (chunk: Buffer) => (findings += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`swagger-parser: ${findings}`))));
    child.stdin.end(JSON.stringify(document));
  });
}
