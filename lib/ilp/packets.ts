import { Errors, errorToIlpReject, type IlpReject } from 'ilp-packet';
import type { Node } from '../shared/node';

// ILP rejects this node makes itself (triggered by its own address).
export const reject = (node: Node, code: string, message: string): IlpReject => ({ code, message, triggeredBy: node.ilpAddress, data: Buffer.alloc(0) });

// F08 with the amounts a sender needs to size its next packet (both in the same units).
export const amountTooLarge = (node: Node, received: bigint, maximum: bigint): IlpReject =>
  errorToIlpReject(
    node.ilpAddress,
    new Errors.AmountTooLargeError(`The packet's amount ${received} is above the most this link takes, ${maximum}`, {
      receivedAmount: received.toString(),
      maximumAmount: maximum.toString(),
    }),
  );
