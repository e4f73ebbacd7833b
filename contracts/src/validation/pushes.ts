/**
 * Validators of the store pushes (docs/product.md, Ingestion), one item at a time; the ingest route reports bad items by index.
 * Pure: no clock, no I/O.
 */
import { PLATFORMS } from '../channels';
import type { AdSpendRow, ShopCustomer, ShopOrder, ShopProduct } from '../pushes';
import { adSpendRowSchema, shopCustomerSchema, shopOrderSchema, shopProductSchema } from './push-schemas';
import { runSchema, type ValidationResult } from './result';

function withoutWarnings<T>(result: ReturnType<typeof runSchema<T>>): ValidationResult<T> {
  return result.ok ? { ok: true, value: result.value, warnings: [] } : result;
}

/** Validates one order (Shopify Admin REST shape); ids come out as strings. */
export function validateOrder(input: unknown): ValidationResult<ShopOrder> {
  return withoutWarnings(runSchema(shopOrderSchema, input, 'order'));
}

/** Validates one product (Shopify Admin REST shape, `variants[].cost` our extension); ids come out as strings. */
export function validateProduct(input: unknown): ValidationResult<ShopProduct> {
  return withoutWarnings(runSchema(shopProductSchema, input, 'product'));
}

/** Validates one customer (Shopify Admin REST shape); ids come out as strings. */
export function validateCustomer(input: unknown): ValidationResult<ShopCustomer> {
  return withoutWarnings(runSchema(shopCustomerSchema, input, 'customer'));
}

/**
 * Validates one ad-spend row; ids come out as strings. A platform outside `PLATFORMS` is accepted with the
 * warning `platform unknown` (its spend cannot join a touchpoint's platform).
 */
export function validateAdSpendRow(input: unknown): ValidationResult<AdSpendRow> {
  const result = runSchema(adSpendRowSchema, input, 'row');
  if (!result.ok) return result;
  const known = (PLATFORMS as readonly string[]).includes(result.value.platform);
  return { ok: true, value: result.value, warnings: known ? [] : ['platform unknown'] };
}
