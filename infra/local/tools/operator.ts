import { randomBytes } from 'node:crypto';
import { roles } from '../../../lib/shared/operators';
import { dataDirOf, nodeFromArgs } from '../start/defaults';
import { localOperators } from '../start/operators';
import { ROOT } from '../start/serverless-config';

// `npm run operator -- <name> <role> [--tenant <id>] [--node b|c]`: adds an operator to a local node's
// console (or gives one a new password and role), with a password made here and printed once; a
// running node takes them at their next sign-in. The local stand-in for an administrator's
// `aws cognito-idp admin-create-user` and `admin-add-user-to-group` (docs/deploy.md).
const node = nodeFromArgs(process.argv);
const args = process.argv.slice(2);
const at = args.indexOf('--tenant');
const tenant = at === -1 ? undefined : args.splice(at, 2)[1];
const [name, role] = args;
if (!name || !roles.includes(role as never) || (at !== -1 && !tenant)) {
  console.error(`usage: npm run operator -- <name> <${roles.join('|')}> [--tenant <id>] [--node b|c]`);
  process.exit(2);
}
const password = `${randomBytes(12).toString('base64url')}-Aa1`;
try {
  localOperators(dataDirOf(ROOT, node)).add({ name, password, role: role as (typeof roles)[number], ...(tenant && { tenant }) });
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}
console.log(`Node ${node.toUpperCase()}: ${name} (${role}${tenant ? ` of tenant ${tenant}` : ''}) signs in to the console with the password ${password}`);
