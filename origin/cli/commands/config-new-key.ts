import { generateSecret, hashSecret } from '../../../shared/access/secret.ts';
import type { Command } from '../command.ts';

export const configNewKey: Command = {
  name: 'config new-key',
  summary: 'Make a new API key secret and its secret_sha256 for a configuration file',
  positionals: [],
  options: [{ name: 'json', type: 'boolean', description: 'Print {"secret", "secret_sha256"} as one JSON document' }],
  description: [
    'A configuration file never holds a key\'s secret, only its secret_sha256 (the lowercase hex SHA-256 of the secret). This makes a secret as the server would (slc_ and 32 random characters) and prints both: put secret_sha256 in the file under api_keys, and hand the secret to whoever calls with the key. It is shown only here.',
    'Giving an existing key a new secret_sha256 rotates it: its old secret keeps working for 60 minutes.',
    'Touches no store and no server.',
  ],
  exitCodes: [[0, 'printed']],
  examples: ['sluice config new-key', 'sluice config new-key --json | jq -r .secret_sha256'],
  usesBackend: false,
  async run({ args, out }) {
    const secret = generateSecret();
    const sha256 = await hashSecret(secret);
    if (args.values.json) {
      await out.result(`${JSON.stringify({ secret, secret_sha256: sha256 })}\n`);
    } else {
      await out.result(`secret:        ${secret}\nsecret_sha256: ${sha256}\n`);
      out.progress('Put secret_sha256 in the file; keep the secret out of it. The secret is not shown again.');
    }
    return 0;
  },
};
