/** The part of `@shopify/web-pixels-extension` the extension uses (the package is provided by Shopify's build). */
declare module '@shopify/web-pixels-extension' {
  export interface ExtensionApi {
    analytics: { subscribe(name: string, callback: (event: { id: string }) => void): unknown };
    settings: Record<string, string | undefined>;
  }
  export function register(extend: (api: ExtensionApi) => void): void;
}
