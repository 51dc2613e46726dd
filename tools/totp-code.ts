// Prints the current authenticator code for a base32 secret, as an authenticator app would show it.
// For trying the second-factor walkthrough without a phone: node dist/tools/totp-code.js <secret> [stepOffset]
import { timeStep, totpAt } from '../core/identity/totp';

const [secret, offset = '0'] = process.argv.slice(2);
if (!secret || !/^[A-Za-z2-7]+=*$/.test(secret) || !/^-?[0-9]+$/.test(offset)) {
  process.stderr.write('usage: node dist/tools/totp-code.js <base32 secret> [step offset]\n');
  process.exit(2);
}
process.stdout.write(`${totpAt(secret.toUpperCase(), timeStep(Date.now()) + Number(offset))}\n`);
