/**
 * Validators of incoming JSON (docs/product.md, Ingestion). Import from here; `contracts/src/index.ts` re-exports
 * types and constants only.
 */
export { COLLECT_DEFAULTS, DEFAULT_MAX_FUTURE_MS, validateEvent, type ValidateEventOptions } from './event';
export { validateAdSpendRow, validateCustomer, validateOrder, validateProduct } from './pushes';
export { formatFieldError, formatPath, type FieldError, type ValidationResult } from './result';
export * from './event-schemas';
export * from './push-schemas';
