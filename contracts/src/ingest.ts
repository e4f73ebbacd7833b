/** Replies of the ingestion routes (docs/product.md, Ingestion). */

/** One problem with one field of one submitted item. */
export interface FieldProblem {
  /** Dotted path inside the item, e.g. `data.checkout.totalPrice.amount`. */
  field: string;
  message: string;
}

/** A rejected item of a batch, by its index in the submitted array (0 for a single object). */
export interface RejectedItem {
  index: number;
  errors: FieldProblem[];
}

export interface IngestResult {
  /** Items accepted and acknowledged by the stream (duplicates included). */
  accepted: number;
  /** Accepted items the stream had already seen (same id): stored once. */
  duplicates: number;
  rejected: RejectedItem[];
  /** Accepted items with tolerated omissions (see the data-quality metric). */
  warnings: number;
}

export interface IngestResponse {
  /** @isInt */
  code: number;
  message: string;
  data: IngestResult;
}
