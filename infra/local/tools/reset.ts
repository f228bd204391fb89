import { dataDirOf, NODES, nodeFromArgs, nodePorts, wipeData } from '../start/defaults';
import { StartError } from '../start/listen';
import { ROOT } from '../start/serverless-config';

// `npm run reset [-- --node b|c]`: wipes a local node's data (tables, queues, stream checkpoints),
// keeping its secrets. Refused while that node runs (the check `npm start -- --fresh` makes too).
const node = nodeFromArgs(process.argv);
const dataDir = dataDirOf(ROOT, node);
try {
  await wipeData(dataDir, nodePorts(NODES[node].ports));
} catch (e) {
  if (!(e instanceof StartError)) throw e;
  console.error(`Node ${node.toUpperCase()}: ${e.message}`);
  process.exit(1);
}
console.log(`Node ${node.toUpperCase()}: data in ${dataDir} wiped (its secrets kept)`);
