/**
 * A rebuild's decoding, on a worker thread of its own (docs/decisions.md, Operations, "A rebuild loads the stream
 * in memory"): the load's main thread reads the stream and writes to PostgreSQL, and hands the messages over in
 * batches; the worker parses them, derives their facts (`StreamFacts`, in stream order: one worker, batches in
 * order) and returns the event facts as COPY text. Parsing is most of a load's CPU, and during the load
 * PostgreSQL leaves the second core nearly idle.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { StoreSettings, DeadLetterRow } from '../adapters/pg-fact-store';
import { deadLetterOf } from '../adapters/pg-batch-writer';
import { eventFactLine } from '../adapters/pg-derived-facts';
import { eventShownOf } from '../../../contracts/src/event-shown';
import { decodeMessage } from '../domain/decode-message';
import type { StreamFacts, StreamFactsSnapshot } from '../domain/stream-facts';

/** Messages as they cross to the worker: their bytes in one buffer (transferred, not copied), the rest beside. */
export interface EncodedBatch {
  subjects: string[];
  seqs: number[];
  receivedAts: number[];
  validated: boolean[];
  /** Where each message's bytes end in `bytes`. */
  ends: number[];
  bytes: Uint8Array;
}

export interface DecodedBatch {
  processed: number;
  /** The first messages' event facts as COPY text (`eventFactLine`). */
  lines: string;
  deadLetters: DeadLetterRow[];
}

/** Gathers messages into an `EncodedBatch`. */
export class BatchEncoder {
  private parts: Uint8Array[] = [];
  private batch: Omit<EncodedBatch, 'bytes'> = { subjects: [], seqs: [], receivedAts: [], validated: [], ends: [] };
  private length = 0;

  get size(): number {
    return this.parts.length;
  }

  add(m: { subject: string; seq: number; receivedAt: number; validated?: boolean; data: Uint8Array }): void {
    this.parts.push(m.data);
    this.length += m.data.length;
    this.batch.subjects.push(m.subject);
    this.batch.seqs.push(m.seq);
    this.batch.receivedAts.push(m.receivedAt);
    this.batch.validated.push(m.validated === true);
    this.batch.ends.push(this.length);
  }

  take(): EncodedBatch {
    const bytes = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) {
      bytes.set(p, at);
      at += p.length;
    }
    const out = { ...this.batch, bytes };
    this.parts = [];
    this.batch = { subjects: [], seqs: [], receivedAts: [], validated: [], ends: [] };
    this.length = 0;
    return out;
  }
}

/** Decodes a batch into `facts`: what the worker does with each batch. */
export function decodeBatch(facts: StreamFacts, storeId: string, batch: EncodedBatch): DecodedBatch {
  const lines: string[] = [];
  const deadLetters: DeadLetterRow[] = [];
  for (let i = 0; i < batch.seqs.length; i++) {
    const msg = {
      subject: batch.subjects[i]!,
      seq: batch.seqs[i]!,
      data: batch.bytes.subarray(i === 0 ? 0 : batch.ends[i - 1], batch.ends[i]),
    };
    const decoded = decodeMessage(msg.subject, msg.data, batch.receivedAts[i] ?? null, batch.validated[i] === true);
    if (decoded.kind === 'poison') deadLetters.push(deadLetterOf(msg, decoded.storeId, decoded.reason));
    else {
      const fact = facts.add(decoded, msg.seq);
      if (fact && decoded.kind === 'event')
        lines.push(
          eventFactLine(storeId, { fact, shown: eventShownOf(decoded.event), receivedAt: batch.receivedAts[i] ?? 0 }),
        );
    }
  }
  return { processed: batch.seqs.length, lines: lines.join(''), deadLetters };
}

/** Built (`npm run build`) this file is JavaScript and so is the worker's; from source both are TypeScript. */
const BUILT = __filename.endsWith('.js');

/** Three semi-spaces of 64 MB (V8 sizes the young generation as three times the semi-space). */
const DECODER_YOUNG_GENERATION_MB = 192;

/** What the main thread sends the worker. */
export type DecoderRequest = { kind: 'batch'; batch: EncodedBatch } | { kind: 'finish' };

/** What the worker is started with. */
export interface DecoderInit {
  store: StoreSettings;
  rates: Array<[string, number]>;
}

export interface RebuildDecoder {
  /** The decoded batch, once the worker has done it and every batch before. */
  decode(batch: EncodedBatch): Promise<DecodedBatch>;
  /** What the worker holds once every batch is decoded. */
  finish(): Promise<StreamFactsSnapshot>;
  close(): Promise<void>;
}

/**
 * Starts a worker thread for one load. Its replies come in the order of the requests; a failure of the worker
 * fails every request outstanding and every later one.
 */
export function startRebuildDecoder(store: StoreSettings, rates: ReadonlyMap<string, number>): RebuildDecoder {
  const init: DecoderInit = { store, rates: [...rates] };
  // From source the worker runs TypeScript like the process that starts it: tsx's CommonJS hook first.
  const entry = path.join(__dirname, `rebuild-decoder.worker${BUILT ? '.js' : '.ts'}`);
  const hook = BUILT ? '' : `require(${JSON.stringify(require.resolve('tsx/cjs'))}); `;
  const worker = new Worker(`${hook}require(${JSON.stringify(entry)});`, {
    eval: true,
    workerData: init,
    // Its own young generation as large as the daemon's (`--max-semi-space-size=64`, docs/operations.md),
    // however the process was started: nearly all it allocates dies with the batch it decodes.
    resourceLimits: { maxYoungGenerationSizeMb: DECODER_YOUNG_GENERATION_MB },
  });
  const waiting: Array<{ resolve: (v: unknown) => void; reject: (err: Error) => void }> = [];
  let failure: Error | null = null;
  const fail = (err: Error): void => {
    failure ??= err;
    for (const w of waiting.splice(0)) w.reject(failure);
  };
  worker.on('message', (reply: unknown) => waiting.shift()?.resolve(reply));
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the rebuild's decoder thread exited (code ${code})`)));
  const request = <T>(message: DecoderRequest, transfer: ArrayBuffer[] = []): Promise<T> => {
    if (failure) return Promise.reject(failure);
    return new Promise<T>((resolve, reject) => {
      waiting.push({ resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage(message, transfer);
    });
  };
  return {
    decode: (batch) => request<DecodedBatch>({ kind: 'batch', batch }, [batch.bytes.buffer as ArrayBuffer]),
    finish: () => request<StreamFactsSnapshot>({ kind: 'finish' }),
    close: async () => {
      worker.removeAllListeners('exit');
      await worker.terminate();
    },
  };
}
