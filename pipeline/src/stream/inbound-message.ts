/**
 * The batch flow's input port: one message of the EVENTS stream with its acknowledgement handles. The
 * JetStream source (adapters/nats-source.ts) and replay produce them; tests build them by hand.
 */
export interface InboundMessage {
  subject: string;
  /** Stream sequence. */
  seq: number;
  data: Uint8Array;
  /** Epoch ms at which the API accepted the message, when it said so. */
  receivedAt: number | null;
  redelivered: boolean;
  /** The API validated the payload with the current validation version (its output is what was published). */
  validated?: boolean;
  ack(): void;
  nak(delayMs?: number): void;
  working(): void;
}
