// @interledger/pay imports node-fetch (with a 280 KB Unicode table) to look receivers up by SPSP,
// which this service never asks it to do; Node's own fetch stands in for it in bundles
// (serverless.yml aliases node-fetch to this file).
export default globalThis.fetch;
