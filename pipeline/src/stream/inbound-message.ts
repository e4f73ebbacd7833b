/**
 * The batch flow's input port: one message of the EVENTS stream with its acknowledgement handles. The
 * JetStream source (adapters/nats-source.ts) and replay produce them; tests build them by hand.
 */
export interface InboundMessage {
  subject: string;
  /** Stream sequence. */
  seq: number;
  data: Uint8Array;
  /**
   * Epoch ms at which the message was received: when the API accepted it (its header), else when the stream
   * stored it. Never the time it is processed, so a replay stores what the live run stored.
   */
  receivedAt: number;
  redelivered: boolean;
  /** The API validated the payload with the current validation version (its output is what was published). */
  validated?: boolean;
  ack(): void;
  nak(delayMs?: number): void;
  working(): void;
}
