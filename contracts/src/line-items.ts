/** Derived figures of checkout line items that every reader computes the same way. */
import type { CheckoutLineItem, Money } from './events';

/**
 * The line's total: its `finalLinePrice`, or, from pixels that predate that member, the unit price times the
 * quantity (line-level discounts are then not reflected). Rounded to millionths to drop binary-float noise.
 */
export function checkoutLineTotal(line: CheckoutLineItem): Money {
  if (line.finalLinePrice) return line.finalLinePrice;
  const { amount, currencyCode } = line.variant.price;
  return { amount: Math.round(amount * line.quantity * 1e6) / 1e6, currencyCode };
}
