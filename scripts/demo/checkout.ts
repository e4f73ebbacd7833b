/**
 * The checkout objects of a session's checkout events, by how far the buyer got: email after the contact step,
 * address after the address step, shipping and tax after the shipping step, billing address after payment, and the
 * order and transaction on checkout_completed.
 */
import type { Checkout, CheckoutLineItem, CompletedCheckout, DiscountApplication } from '../../contracts/src/events';
import { type CartPlan, discountPercent } from './cart';
import { DEMO_CURRENCY, usd } from './format';
import type { StepName } from './funnel';
import type { Session } from './sessions';

/** Checkout objects of one session, by funnel level (lines shared between the session's events). */
export class CheckoutBuilder {
  private readonly lineItems: CheckoutLineItem[];
  private readonly discounts: DiscountApplication[];

  constructor(
    private readonly s: Session,
    private readonly cart: CartPlan,
  ) {
    const application: DiscountApplication | null = cart.discountCode
      ? {
          allocationMethod: 'ACROSS',
          targetSelection: 'ALL',
          targetType: 'LINE_ITEM',
          title: cart.discountCode,
          type: 'DISCOUNT_CODE',
          value: { percentage: discountPercent(cart.discountCode) },
        }
      : null;
    this.discounts = application ? [application] : [];
    this.lineItems = cart.lines.map((l, i) => ({
      discountAllocations:
        application && cart.alloc[i]! > 0 ? [{ amount: usd(cart.alloc[i]!), discountApplication: application }] : [],
      finalLinePrice: usd(cart.gross[i]! - cart.alloc[i]!),
      id: l.variant.id,
      properties: [],
      quantity: l.qty,
      sellingPlanAllocation: null,
      title: l.variant.product.title,
      variant: l.variant.pixel,
    }));
  }

  checkout(name: StepName): Checkout {
    const { s, cart } = this;
    const level =
      name === 'checkout_started'
        ? 0
        : name === 'checkout_contact_info_submitted'
          ? 1
          : name === 'checkout_address_info_submitted'
            ? 2
            : name === 'checkout_shipping_info_submitted'
              ? 3
              : name === 'payment_info_submitted'
                ? 4
                : 5;
    const shipped = level >= 3;
    const address = level >= 2 ? { ...s.person.address } : null;
    const shippingCents = shipped ? cart.shipping : 0;
    const taxCents = shipped ? cart.tax : 0;
    const total = cart.subtotal + shippingCents + taxCents;
    const email = level >= 1 || s.knownEmail ? s.checkoutEmail : null;
    return {
      attributes: [],
      billingAddress: level >= 4 ? { ...s.person.address } : null,
      buyerAcceptsEmailMarketing: level >= 1 ? s.acceptsMarketing : false,
      buyerAcceptsSmsMarketing: false,
      currencyCode: DEMO_CURRENCY,
      delivery: shipped
        ? {
            selectedDeliveryOptions: [
              {
                cost: usd(cart.shipping),
                costAfterDiscounts: usd(cart.shipping),
                description: null,
                handle: cart.shipping === 0 ? 'free-shipping' : 'standard-shipping',
                title: cart.shipping === 0 ? 'Free Shipping' : 'Standard',
                type: 'shipping',
              },
            ],
          }
        : null,
      discountApplications: this.discounts,
      discountsAmount: usd(cart.discount),
      email,
      lineItems: this.lineItems,
      localization: {
        country: { isoCode: 'US' },
        language: { isoCode: 'en' },
        market: { handle: 'us', id: 'gid://shopify/Market/1234567' },
      },
      order: null,
      phone: level >= 2 && s.person.sharesPhone ? s.person.phone : null,
      shippingAddress: address,
      shippingLine: shipped ? { price: usd(cart.shipping) } : null,
      smsMarketingPhone: null,
      subtotalPrice: usd(cart.subtotal),
      token: cart.token,
      totalPrice: usd(total),
      totalTax: usd(taxCents),
      transactions: [],
    };
  }

  completed(): CompletedCheckout {
    const order = this.s.order!;
    const base = this.checkout('checkout_completed');
    return {
      ...base,
      order: { id: order.id, customer: { id: order.customerId, isFirstOrder: order.isFirstOrder } },
      transactions: [
        {
          amount: usd(this.cart.total),
          gateway: order.gateway.gateway,
          paymentMethod: { name: order.gateway.name, type: order.gateway.type },
        },
      ],
    };
  }
}
