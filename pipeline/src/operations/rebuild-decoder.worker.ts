/**
 * The worker thread of a rebuild's decoding (`rebuild-decoder.ts`): one store's facts, batch after batch, in the
 * order the batches come.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { StreamFacts } from '../domain/stream-facts';
import { decodeBatch, type DecoderInit, type DecoderRequest } from './rebuild-decoder';

const init = workerData as DecoderInit;
const rates = new Map(init.rates);
const facts = new StreamFacts(init.store.currency, (c) => rates.get(c));

parentPort!.on('message', (request: DecoderRequest) => {
  if (request.kind === 'batch') parentPort!.postMessage(decodeBatch(facts, init.store.storeId, request.batch));
  else parentPort!.postMessage(facts.snapshot());
});
