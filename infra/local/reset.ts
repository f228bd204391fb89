import { execFileSync } from 'node:child_process';
import { dataDirOf, nodeFromArgs, wipeData } from './defaults';
import { ROOT } from './serverless-config';

// `npm run reset [-- --node b]`: wipes a local node's data (tables, queues, stream checkpoints),
// keeping its secrets. Refused while that node runs (its DynamoDB Local has the files open).
const node = nodeFromArgs(process.argv);
const dataDir = dataDirOf(ROOT, node);
let running = '';
try {
  const path = `${dataDir}/dynamodb`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); // a folder's name, not a pattern
  running = execFileSync('pgrep', ['-f', `DynamoDBLocal\\.jar.*-dbPath ${path}( |$)`])
    .toString()
    .trim();
} catch {
  // not running
}
if (running) {
  console.error(`Node ${node.toUpperCase()} is running on this data (DynamoDB Local pid ${running.split('\n').join(', ')}): stop it first (Ctrl-C)`);
  process.exit(1);
}
wipeData(dataDir);
console.log(`Node ${node.toUpperCase()}: data in ${dataDir} wiped (its secrets kept)`);
